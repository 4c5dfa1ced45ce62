#include "runtime/config/metrics_collector.hpp"

#include <array>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/section.hpp"
#include "runtime/command/metric_pattern.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 1> kKeys{"format"};

std::optional<std::string> read_format(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto format = read_nonempty_string(diag, node, field);
  if (!format) return std::nullopt;
  if (auto pattern = command::MetricPattern::from_format(*format); !pattern) {
    diag.report(node, field, pattern.error().message);
    return std::nullopt;
  }
  return format;
}

}  // namespace

Keys metrics_collector_keys() { return kKeys; }

MetricsCollector read_metrics_collector(Diagnostics& diag, const YAML::Node& node,
                                        const std::string& field) {
  MetricsCollector collector;
  const Section section(diag, node, field, kKeys);
  section.read("format", collector.format, read_format);
  return collector;
}

}  // namespace volador::config
