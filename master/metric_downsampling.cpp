#include "master/metric_downsampling.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace volador::master {
namespace {

// One series: the indexes (into the reports) of the reports that carry the metric, and its values there.
struct Series {
  std::vector<std::size_t> reports;
  std::vector<double> values;
};

// Positions (into `values`) kept of a series longer than max_points: the
// first, the last, and the smallest, largest and last of each inner bucket.
std::set<std::size_t> kept_positions(const std::vector<double>& values, std::size_t max_points) {
  const std::size_t n = values.size();
  const std::size_t buckets = (max_points - 2) / 3;
  std::set<std::size_t> kept{0, n - 1};
  auto bucket_begin = [&](std::size_t b) { return 1 + b * (n - 2) / buckets; };
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t begin = bucket_begin(b), end = bucket_begin(b + 1);
    if (begin == end) continue;
    std::size_t low = begin, high = begin;
    for (std::size_t i = begin; i < end; ++i) {
      if (values[i] < values[low]) low = i;
      if (values[i] > values[high]) high = i;
    }
    kept.insert({low, high, end - 1});
  }
  return kept;
}

wire::MetricPoint point_of(const storage::MetricRecord& report, MetricMap metrics) {
  return {.kind = report.kind, .batches = report.batches, .reported_at_ms = report.reported_at_ms, .metrics = std::move(metrics)};
}

// Every report with all its metrics, nothing cut.
DownsampledReports every_report(const std::vector<storage::MetricRecord>& reports) {
  DownsampledReports whole;
  for (const auto& report : reports) whole.points.push_back(point_of(report, report.metrics));
  return whole;
}

}  // namespace

DownsampledReports downsample_reports(const std::vector<storage::MetricRecord>& reports, std::size_t max_points) {
  max_points = max_points == 0 ? reports.size() : std::max(max_points, kMinPointsPerSeries);
  if (reports.size() <= max_points) return every_report(reports);  // no series is longer than the reports
  std::map<std::pair<MetricKind, std::string>, Series> series;
  for (std::size_t i = 0; i < reports.size(); ++i)
    for (const auto& [name, value] : reports[i].metrics) {
      auto& s = series[{reports[i].kind, name}];
      s.reports.push_back(i);
      s.values.push_back(value);
    }
  if (std::ranges::none_of(series, [&](const auto& entry) { return entry.second.values.size() > max_points; }))
    return every_report(reports);
  DownsampledReports out;
  out.downsampled = true;
  // The metrics kept of each report, by report index.
  std::map<std::size_t, MetricMap> kept_of;
  for (const auto& [key, s] : series) {
    auto keep = [&](std::size_t position) { kept_of[s.reports[position]].emplace(key.second, s.values[position]); };
    if (s.values.size() <= max_points) {
      for (std::size_t position = 0; position < s.values.size(); ++position) keep(position);
    } else {
      for (std::size_t position : kept_positions(s.values, max_points)) keep(position);
    }
  }
  for (auto& [index, metrics] : kept_of) out.points.push_back(point_of(reports[index], std::move(metrics)));
  return out;
}

}  // namespace volador::master
