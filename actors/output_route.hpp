#pragma once
// Where a warm rank worker's output goes: the output of the trial it runs
// now. The worker's reader thread adds its lines and, when the worker says
// it finished a trial (after that trial's last line), starts the next
// trial's output; the agent holds each trial's output and ships it to that
// trial. Thread-safe.

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "runtime/trial_output/worker_output.hpp"

namespace volador::actors {

class OutputRoute {
 public:
  // Each trial's output holds at most `max_buffered_bytes`, within `limits`, stamped by `clock`.
  OutputRoute(trial_output::OutputLimits limits, std::uint64_t max_buffered_bytes, Clock clock)
      : limits_(limits), max_buffered_bytes_(max_buffered_bytes), clock_(std::move(clock)), current_(make()) {}

  // The reader thread: a line of the current trial.
  void add(std::string_view stream, std::string line) { current()->add(stream, std::move(line)); }
  // The reader thread: the current trial's output is complete; later lines go to a new one.
  void next() {
    auto fresh = make();
    std::lock_guard lock(mutex_);
    current_ = std::move(fresh);
  }
  // The output lines go to now. A trial's output is taken before its worker
  // sees the trial: a short trial may end, and the route move on, at once.
  [[nodiscard]] std::shared_ptr<trial_output::WorkerOutput> current() const {
    std::lock_guard lock(mutex_);
    return current_;
  }

 private:
  std::shared_ptr<trial_output::WorkerOutput> make() const {
    return std::make_shared<trial_output::WorkerOutput>(limits_, max_buffered_bytes_, clock_);
  }
  trial_output::OutputLimits limits_;
  std::uint64_t max_buffered_bytes_;
  Clock clock_;
  mutable std::mutex mutex_;
  std::shared_ptr<trial_output::WorkerOutput> current_;
};

}  // namespace volador::actors
