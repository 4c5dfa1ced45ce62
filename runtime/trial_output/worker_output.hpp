#pragma once
// One worker's output on its agent, between the reader thread that reads it
// and the agent that ships it to the trial: a buffer bounded in bytes, fed
// through an OutputBudget (dropped lines become marker lines on the
// "system" stream). Thread-safe.

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/trial_output/output_budget.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::trial_output {

class WorkerOutput {
 public:
  // Holds at most `max_buffered_bytes` of text before lines are dropped; `clock` stamps lines and runs the budget.
  WorkerOutput(OutputLimits limits, std::uint64_t max_buffered_bytes, Clock clock);

  // One line of `stream` (stdout, stderr): kept, or dropped and counted.
  void add(std::string_view stream, std::string text);
  // After the worker's last line: the marker for lines dropped since the last one, if any.
  void finish();
  // The oldest lines, up to `max_bytes` of text (at least one line when any
  // is buffered), removed from the buffer.
  std::vector<wire::LogEntry> take(std::uint64_t max_bytes);
  [[nodiscard]] std::uint64_t buffered_bytes() const;

 private:
  void append(std::string_view stream, std::string text);

  mutable std::mutex mutex_;
  OutputBudget budget_;
  Clock clock_;
  std::uint64_t max_buffered_bytes_;
  std::uint64_t buffered_bytes_ = 0;
  std::deque<wire::LogEntry> lines_;
};

}  // namespace volador::trial_output
