#pragma once
// How a rank waits for its peers, shared by the shm and TCP backends: busy-
// poll first (no wakeup latency), then yield the core (a peer that shares
// it can run), then block (futex or poll), so that a long wait costs no CPU.
//
// The spin budget adapts, like glibc's adaptive mutexes: it grows while
// spinning pays off and halves when it does not (the peer is slow, or shares
// this core and cannot run while we spin); it is zero when the group has
// more ranks than this process may use cores. Not thread-safe.

#include <chrono>

#include "runtime/collective/deadline.hpp"

namespace volador::collective {

class SpinPolicy {
 public:
  static constexpr std::chrono::microseconds kMaxSpin{20};

  explicit SpinPolicy(int ranks);

  [[nodiscard]] std::chrono::microseconds budget() const { return budget_; }
  void paid_off();
  void wasted() { budget_ /= 2; }

 private:
  std::chrono::microseconds max_;
  std::chrono::microseconds budget_;
};

// The phases of one wait, by the time since it began.
class Backoff {
 public:
  enum class Step { spin, yield, block };
  static constexpr std::chrono::microseconds kYieldTime{1000};

  explicit Backoff(SpinPolicy& policy) : policy_(&policy), start_(Clock::now()) {}

  // What to do next: spin (check again at once), yield the core, or block.
  [[nodiscard]] Step next();
  // The awaited event came: spinning paid off if we were still spinning.
  void done();
  // done(), and the next wait starts now.
  void restart();

 private:
  SpinPolicy* policy_;
  Clock::time_point start_;
  bool spinning_ = true;
};

// Cores this process may run on (its affinity mask).
[[nodiscard]] int usable_cpus();

}  // namespace volador::collective
