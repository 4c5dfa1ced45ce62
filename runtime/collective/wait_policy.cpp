#include "runtime/collective/wait_policy.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace volador::collective {

SpinPolicy::SpinPolicy(int ranks)
    : budget_(ranks > usable_cpus() ? std::chrono::microseconds(0) : kMaxSpin) {}

bool SpinPolicy::should_spin() {
  if (budget_.count() == 0) return false;
  ++waits_;
  return score_ > 0 || waits_ % kProbeEvery == 0;
}

void SpinPolicy::record(bool paid_off) {
  score_ = paid_off ? std::min(kFullScore, score_ + 1) : std::max(0, score_ - kMissPenalty);
}

Backoff::Backoff(SpinPolicy& policy) : policy_(&policy), start_(Clock::now()), spinning_(policy.should_spin()) {}

Backoff::Step Backoff::next() {
  const auto waited = Clock::now() - start_;
  if (spinning_ && waited < policy_->budget()) return Step::spin;
  if (spinning_) {
    spinning_ = false;
    policy_->record(false);
  }
  return waited < kYieldTime ? Step::yield : Step::block;
}

void Backoff::done() {
  if (spinning_) policy_->record(true);
  spinning_ = false;
}

void Backoff::restart() {
  done();
  start_ = Clock::now();
  spinning_ = policy_->should_spin();
}

int usable_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace volador::collective
