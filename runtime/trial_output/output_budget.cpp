#include "runtime/trial_output/output_budget.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace volador::trial_output {

OutputBudget::OutputBudget(OutputLimits limits, Clock clock)
    : limits_(limits),
      clock_(std::move(clock)),
      refilled_at_ms_(clock_()),
      tokens_(static_cast<double>(limits.burst_bytes)) {}

void OutputBudget::refill() {
  const auto now = clock_();
  if (now <= refilled_at_ms_) return;  // a clock that stepped back refills nothing
  tokens_ = std::min(static_cast<double>(limits_.burst_bytes),
                     tokens_ + static_cast<double>(now - refilled_at_ms_) * static_cast<double>(limits_.bytes_per_second) / 1000.0);
  refilled_at_ms_ = now;
}

Admission OutputBudget::admit(std::uint64_t bytes, std::uint64_t room) {
  if (cap_reached_) {
    over_cap_.add(bytes);
    return {};
  }
  if (kept_bytes_ + bytes > limits_.max_bytes) {
    cap_reached_ = true;
    over_cap_.add(bytes);
    return {fmt::format("volador: this worker's output reached the {} a worker may log: later lines are dropped "
                        "and counted when it ends",
                        describe_bytes(limits_.max_bytes)),
            false};
  }
  if (bytes > room) {
    no_room_.add(bytes);
    return {};
  }
  refill();
  if (static_cast<double>(bytes) > tokens_) {
    over_rate_.add(bytes);
    return {};
  }
  tokens_ -= static_cast<double>(bytes);
  kept_bytes_ += bytes;
  return {take_marker(), true};
}

std::optional<std::string> OutputBudget::finish() { return take_marker(); }

std::optional<std::string> OutputBudget::take_marker() {
  const std::uint64_t lines = over_rate_.lines + over_cap_.lines + no_room_.lines;
  if (lines == 0) return std::nullopt;
  std::vector<std::string> reasons;
  auto reason = [&](const DroppedLines& dropped, const std::string& why) {
    if (dropped.lines > 0) reasons.push_back(fmt::format("{} ({}) {}", dropped.lines, describe_bytes(dropped.bytes), why));
  };
  reason(over_rate_, fmt::format("printed faster than {}/s (bursts of {} pass)", describe_bytes(limits_.bytes_per_second),
                                 describe_bytes(limits_.burst_bytes)));
  reason(over_cap_, fmt::format("past the {} a worker may log", describe_bytes(limits_.max_bytes)));
  reason(no_room_, "while the agent's buffer was full (the master away or slow)");
  const std::uint64_t bytes = over_rate_.bytes + over_cap_.bytes + no_room_.bytes;
  over_rate_ = over_cap_ = no_room_ = {};
  return fmt::format("volador: {} lines ({}) of output dropped: {}", lines, describe_bytes(bytes), fmt::join(reasons, "; "));
}

std::string describe_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(kUnits); ++unit) value /= 1024;
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

}  // namespace volador::trial_output
