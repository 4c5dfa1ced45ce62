#pragma once
// How a rank waits for its peers, shared by the shm and TCP backends: busy-
// poll first (no wakeup latency), then yield the core (a peer that shares
// it can run), then block (futex or poll), so that a long wait costs no CPU.
//
// Whether to spin is learnt, like glibc's adaptive mutexes: spinning pays
// off when the peer runs on another core and answers within kMaxSpin, and
// only wastes time when the peer is slow or shares this core (it cannot run
// while we spin). A score rises with every spin that paid off and drops fast
// with every one that did not; at zero the policy only probes now and then.
// Ranks that outnumber this process's cores never spin. Not thread-safe.

#include <chrono>

#include "runtime/collective/deadline.hpp"

namespace volador::collective {

class SpinPolicy {
 public:
  static constexpr std::chrono::microseconds kMaxSpin{20};

  explicit SpinPolicy(int ranks);

  // Called as a wait begins: spin this time?
  [[nodiscard]] bool should_spin();
  // How a spin ended: the peer answered while we spun, or not.
  void record(bool paid_off);
  [[nodiscard]] std::chrono::microseconds budget() const { return budget_; }

 private:
  static constexpr int kFullScore = 8;
  static constexpr int kMissPenalty = 4;
  static constexpr unsigned kProbeEvery = 64;  // waits between probes at score zero

  std::chrono::microseconds budget_;
  int score_ = kFullScore;
  unsigned waits_ = 0;
};

// The phases of one wait, by the time since it began.
class Backoff {
 public:
  enum class Step { spin, yield, block };
  static constexpr std::chrono::microseconds kYieldTime{1000};

  explicit Backoff(SpinPolicy& policy);

  // What to do next: spin (check again at once), yield the core, or block.
  [[nodiscard]] Step next();
  // The awaited event came.
  void done();
  // done(), and the next wait starts now.
  void restart();

 private:
  SpinPolicy* policy_;
  Clock::time_point start_;
  bool spinning_;
};

// Cores this process may run on (its affinity mask).
[[nodiscard]] int usable_cpus();

}  // namespace volador::collective
