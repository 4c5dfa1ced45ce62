#pragma once
// Shortening a long metric series for a chart without losing its shape:
// largest-triangle-three-buckets (Steinarsson 2013). Pure.

#include <cstddef>
#include <vector>

namespace volador::http {

struct SeriesPoint {
  double x = 0;  // batches
  double y = 0;  // the metric's value
  bool operator==(const SeriesPoint&) const = default;
};

// At most `max_points` of `points` (ordered by x), always the first and the
// last; the series itself when it is no longer than that. A `max_points`
// below 3 is taken as 3.
std::vector<SeriesPoint> downsample(const std::vector<SeriesPoint>& points, std::size_t max_points);

}  // namespace volador::http
