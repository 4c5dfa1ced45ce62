#pragma once
// A progress deadline: it expires `budget` after the last extend(), so a
// long transfer that keeps moving never times out but a stalled one does.
// Plain value, not thread-safe.

#include <algorithm>
#include <chrono>

namespace volador::collective {

using Clock = std::chrono::steady_clock;

class Deadline {
 public:
  explicit Deadline(std::chrono::milliseconds budget) : budget_(budget), at_(Clock::now() + budget) {}

  // Progress was made: the budget starts again.
  void extend() { at_ = Clock::now() + budget_; }
  [[nodiscard]] bool expired() const { return Clock::now() >= at_; }
  // Milliseconds left, rounded up, for poll(); 0 once expired.
  [[nodiscard]] int poll_ms() const {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(at_ - Clock::now()).count();
    return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
  }
  [[nodiscard]] std::chrono::milliseconds budget() const { return budget_; }

 private:
  std::chrono::milliseconds budget_;
  Clock::time_point at_;
};

}  // namespace volador::collective
