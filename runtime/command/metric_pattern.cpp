#include "runtime/command/metric_pattern.hpp"

#include <charconv>
#include <cmath>

#include "runtime/command/katib_scanner.hpp"

namespace volador::command {
namespace {

std::string describe_regex_error(std::regex_constants::error_type code) {
  namespace rc = std::regex_constants;
  switch (code) {
    case rc::error_collate: return "an invalid collating element name";
    case rc::error_ctype: return "an invalid character class name";
    case rc::error_escape: return "an invalid escape or a trailing backslash";
    case rc::error_backref: return "a back reference to a group that does not exist";
    case rc::error_brack: return "an unmatched [ or ]";
    case rc::error_paren: return "an unmatched ( or ), or an unsupported (?...) group";
    case rc::error_brace: return "an unmatched { or }";
    case rc::error_badbrace: return "an invalid count in { }";
    case rc::error_range: return "an invalid character range such as [z-a]";
    case rc::error_space: return "too many states once repeats are expanded; use a shorter expression";
    case rc::error_badrepeat: return "a *, +, ? or { } that repeats nothing";
    default: return "a construct that is too complex";
  }
}

std::string_view group(const std::cmatch& match, std::size_t index) {
  const auto& sub = match[index];
  return sub.matched ? std::string_view(sub.first, sub.second) : std::string_view();
}

void add_if_number(std::vector<Metric>& metrics, std::string_view name, std::string_view value) {
  if (name.empty()) return;
  if (auto number = parse_metric_value(value)) metrics.push_back({std::string(name), *number});
}

}  // namespace

MetricPattern MetricPattern::katib() { return MetricPattern(std::nullopt); }

Result<MetricPattern> MetricPattern::from_format(std::string_view format) {
  if (format.empty()) return katib();
  std::regex regex;
  try {
    regex.assign(format.begin(), format.end(), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fail(Error::invalid_argument("invalid regular expression: " + describe_regex_error(e.code())));
  }
  if (regex.mark_count() < 2) {
    return fail(Error::invalid_argument(
        "expected a regular expression with at least 2 capture groups (1: the metric's name, "
        "2: its value), got " + std::to_string(regex.mark_count())));
  }
  return MetricPattern(std::move(regex));
}

std::vector<Metric> MetricPattern::find_metrics(std::string_view line) const {
  std::vector<Metric> metrics;
  if (!custom_) {
    for (const auto& match : find_katib_matches(line)) add_if_number(metrics, match.name, match.value);
    return metrics;
  }
  if (line.size() > kMaxCustomPatternLineBytes) return metrics;
  const std::cregex_iterator end;
  for (std::cregex_iterator it(line.data(), line.data() + line.size(), *custom_); it != end; ++it) {
    add_if_number(metrics, group(*it, 1), group(*it, 2));
  }
  return metrics;
}

std::optional<double> parse_metric_value(std::string_view text) {
  if (text.starts_with('+') && !text.starts_with("+-")) text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace volador::command
