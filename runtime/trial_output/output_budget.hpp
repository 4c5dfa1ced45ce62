#pragma once
// How much of one worker's output reaches the trial's log: a rate limit (a
// token bucket of bytes, refilled at `bytes_per_second` up to `burst_bytes`),
// a cap on the bytes kept in all, and the room left in the caller's buffer
// (which fills while the master is away or slow). A line over any of them is
// dropped and counted, never waited for: training is never held up, and
// memory stays bounded. A marker line stands in for the dropped lines,
// saying how many and why. Pure: time comes from the injected Clock.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/core/clock.hpp"

namespace volador::trial_output {

struct OutputLimits {
  std::uint64_t bytes_per_second = 1ull << 20;  // sustained rate
  std::uint64_t burst_bytes = 8ull << 20;       // printed at once before the rate applies
  std::uint64_t max_bytes = 128ull << 20;       // kept in all, markers aside
};

// Lines dropped (and their bytes, a newline each) for one reason.
struct DroppedLines {
  std::uint64_t lines = 0;
  std::uint64_t bytes = 0;
  void add(std::uint64_t line_bytes) {
    ++lines;
    bytes += line_bytes;
  }
};

// What to do with one line.
struct Admission {
  std::optional<std::string> marker;  // goes into the log first: dropped lines, or the cap just reached
  bool keep = false;                  // whether the line itself goes in (after the marker)
};

class OutputBudget {
 public:
  // Starts with a full bucket at clock()'s time.
  OutputBudget(OutputLimits limits, Clock clock);

  // Decides on a line of `bytes` (its text and newline) when the caller's
  // buffer has room for `room` more bytes. A kept line after dropped ones
  // comes with their marker; so does the first line refused for the cap,
  // whose marker says that later lines are dropped.
  Admission admit(std::uint64_t bytes, std::uint64_t room);

  // After the output's last line: the marker for the lines dropped since
  // the last marker, if any were.
  std::optional<std::string> finish();

  [[nodiscard]] std::uint64_t kept_bytes() const { return kept_bytes_; }

 private:
  void refill();
  std::optional<std::string> take_marker();

  OutputLimits limits_;
  Clock clock_;
  std::int64_t refilled_at_ms_;
  double tokens_;
  std::uint64_t kept_bytes_ = 0;
  bool cap_reached_ = false;
  DroppedLines over_rate_, over_cap_, no_room_;  // since the last marker
};

// `bytes` for people: "512 B", "1.5 KiB", "12.3 MiB", "1.0 GiB".
std::string describe_bytes(std::uint64_t bytes);

}  // namespace volador::trial_output
