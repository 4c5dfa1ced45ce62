#pragma once
// A trial's journaled metric reports as chart series: one metric of one
// kind against batches, downsampled on the server. Pure.

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "http/downsample.hpp"
#include "storage/journal/journal.hpp"

namespace volador::http {

// Every metric name reported with `kind`, sorted.
std::set<std::string> metric_names(const std::vector<storage::MetricRecord>& reports, MetricKind kind);

// The value of `metric` in each report of `kind` that has it, by batches,
// cut to at most `max_points` (see downsample).
std::vector<SeriesPoint> metric_series(const std::vector<storage::MetricRecord>& reports, MetricKind kind,
                                       const std::string& metric, std::size_t max_points);

}  // namespace volador::http
