#pragma once
// A trial's metric reports as `trial describe` and the HTTP API show them:
// each series (one metric of one kind, in report order) cut to a bounded
// number of points, keeping its shape. Inner points fall into equal buckets
// and each bucket keeps its smallest, its largest and its last value (so
// spikes, the best value and the end of every bucket survive); the first
// and the last point are always kept. Pure.

#include <cstddef>
#include <vector>

#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The points `trial describe` keeps of each series by default.
inline constexpr std::size_t kDefaultPointsPerSeries = 1000;
// Fewer cannot hold the first and last points and one bucket.
inline constexpr std::size_t kMinPointsPerSeries = 5;

struct DownsampledReports {
  std::vector<wire::MetricPoint> points;  // in report order; a cut report keeps only the metrics kept of it
  bool downsampled = false;               // some series lost points
};

// At most `max_points` points of each series of `reports` (ordered as the
// journal returns them); every report as it is when `max_points` is 0 or no
// series is longer (else reports without metrics are left out). A
// `max_points` below kMinPointsPerSeries is taken as that.
DownsampledReports downsample_reports(const std::vector<storage::MetricRecord>& reports, std::size_t max_points);

}  // namespace volador::master
