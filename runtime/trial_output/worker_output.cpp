#include "runtime/trial_output/worker_output.hpp"

namespace volador::trial_output {
namespace {

// A line's size in the buffer and the budget: its text and a newline.
std::uint64_t line_bytes(const std::string& text) { return text.size() + 1; }

}  // namespace

WorkerOutput::WorkerOutput(OutputLimits limits, std::uint64_t max_buffered_bytes, Clock clock)
    : budget_(limits, clock), clock_(std::move(clock)), max_buffered_bytes_(max_buffered_bytes) {}

void WorkerOutput::add(std::string_view stream, std::string text) {
  std::lock_guard lock(mutex_);
  const auto room = max_buffered_bytes_ > buffered_bytes_ ? max_buffered_bytes_ - buffered_bytes_ : 0;
  auto admission = budget_.admit(line_bytes(text), room);
  if (admission.marker) append("system", std::move(*admission.marker));
  if (admission.keep) append(stream, std::move(text));
}

void WorkerOutput::finish() {
  std::lock_guard lock(mutex_);
  if (auto marker = budget_.finish()) append("system", std::move(*marker));
}

std::vector<wire::LogEntry> WorkerOutput::take(std::uint64_t max_bytes) {
  std::lock_guard lock(mutex_);
  std::vector<wire::LogEntry> out;
  std::uint64_t taken = 0;
  while (!lines_.empty() && (out.empty() || taken + line_bytes(lines_.front().text) <= max_bytes)) {
    taken += line_bytes(lines_.front().text);
    out.push_back(std::move(lines_.front()));
    lines_.pop_front();
  }
  buffered_bytes_ -= taken;
  return out;
}

std::uint64_t WorkerOutput::buffered_bytes() const {
  std::lock_guard lock(mutex_);
  return buffered_bytes_;
}

// Markers are appended even to a full buffer: they come at most once per kept line, or once at the cap and the end.
void WorkerOutput::append(std::string_view stream, std::string text) {
  buffered_bytes_ += line_bytes(text);
  lines_.push_back({0, clock_(), std::string(stream), std::move(text)});
}

}  // namespace volador::trial_output
