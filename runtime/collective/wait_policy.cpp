#include "runtime/collective/wait_policy.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace volador::collective {

SpinPolicy::SpinPolicy(int ranks)
    : max_(ranks > usable_cpus() ? std::chrono::microseconds(0) : kMaxSpin), budget_(max_) {}

void SpinPolicy::paid_off() { budget_ = std::min(max_, budget_ + budget_ / 4 + std::chrono::microseconds(1)); }

Backoff::Step Backoff::next() {
  const auto waited = Clock::now() - start_;
  if (spinning_ && waited < policy_->budget()) return Step::spin;
  if (spinning_) {
    spinning_ = false;
    policy_->wasted();
  }
  return waited < kYieldTime ? Step::yield : Step::block;
}

void Backoff::done() {
  if (spinning_) policy_->paid_off();
}

void Backoff::restart() {
  done();
  start_ = Clock::now();
  spinning_ = true;
}

int usable_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace volador::collective
