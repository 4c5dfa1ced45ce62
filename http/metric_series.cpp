#include "http/metric_series.hpp"

namespace volador::http {

std::set<std::string> metric_names(const std::vector<storage::MetricRecord>& reports, MetricKind kind) {
  std::set<std::string> names;
  for (const auto& report : reports)
    if (report.kind == kind)
      for (const auto& [name, value] : report.metrics) names.insert(name);
  return names;
}

std::vector<SeriesPoint> metric_series(const std::vector<storage::MetricRecord>& reports, MetricKind kind,
                                       const std::string& metric, std::size_t max_points) {
  std::vector<SeriesPoint> points;
  for (const auto& report : reports) {
    if (report.kind != kind) continue;
    auto it = report.metrics.find(metric);
    if (it != report.metrics.end()) points.push_back({static_cast<double>(report.batches), it->second});
  }
  return downsample(points, max_points);
}

}  // namespace volador::http
