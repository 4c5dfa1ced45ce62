#pragma once
// Metrics read from a command's stdout, Katib style: every match of a
// pattern on a line is a metric, group 1 its name and group 2 its value.
//   epoch 3: loss=0.25 accuracy=0.91   ->  loss 0.25, accuracy 0.91
// Reporting-API lines are recognised before this (report_line.hpp).

#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::command {

// Katib's default metrics format.
inline constexpr std::string_view kKatibMetricPattern =
    R"(([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?))";

// A custom pattern is tried only on lines up to this long: std::regex
// backtracks (quadratic time on long words) and recurses per character.
inline constexpr std::size_t kMaxCustomPatternLineBytes = 2048;

struct Metric {
  std::string name;
  double value = 0;
  bool operator==(const Metric&) const = default;
};

// A compiled metrics format; cheap to copy, safe to share between threads
// for reading.
class MetricPattern {
 public:
  // Katib's default pattern, matched in linear time on lines of any length.
  static MetricPattern katib();

  // `format` as an ECMAScript regular expression (std::regex syntax; no
  // (?P<name>...) or (?i)) with group 1 the name and group 2 the value; an
  // empty format is katib(). Errors (invalid_argument, saying why): a
  // malformed expression, or fewer than 2 capture groups.
  static Result<MetricPattern> from_format(std::string_view format);

  // The metrics on `line`, left to right (a name may repeat): each
  // non-overlapping match whose name is non-empty and whose value is a
  // finite number ("name=" or "name=abc" give nothing). A custom pattern
  // skips lines longer than kMaxCustomPatternLineBytes.
  [[nodiscard]] std::vector<Metric> find_metrics(std::string_view line) const;

 private:
  explicit MetricPattern(std::optional<std::regex> custom) : custom_(std::move(custom)) {}

  std::optional<std::regex> custom_;  // nullopt: Katib's default
};

// `text` as a finite double: optional sign (+ or -), digits, fraction,
// exponent, nothing else; "1e999", "inf", "nan" and "" are nullopt.
[[nodiscard]] std::optional<double> parse_metric_value(std::string_view text);

}  // namespace volador::command
