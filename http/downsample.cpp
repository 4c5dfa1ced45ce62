#include "http/downsample.hpp"

#include <algorithm>
#include <cmath>

namespace volador::http {
namespace {

// The mean point of points[begin, end).
SeriesPoint centroid(const std::vector<SeriesPoint>& points, std::size_t begin, std::size_t end) {
  SeriesPoint mean;
  for (std::size_t i = begin; i < end; ++i) {
    mean.x += points[i].x;
    mean.y += points[i].y;
  }
  const auto n = static_cast<double>(end - begin);
  return {mean.x / n, mean.y / n};
}

double triangle_area(const SeriesPoint& a, const SeriesPoint& b, const SeriesPoint& c) {
  return std::abs((a.x - c.x) * (b.y - a.y) - (a.x - b.x) * (c.y - a.y));
}

}  // namespace

std::vector<SeriesPoint> downsample(const std::vector<SeriesPoint>& points, std::size_t max_points) {
  max_points = std::max<std::size_t>(max_points, 3);
  if (points.size() <= max_points) return points;
  // The inner points fall into max_points - 2 buckets; each gives the point
  // that spans the largest triangle with the previous pick and the next
  // bucket's centroid.
  const std::size_t buckets = max_points - 2;
  const double width = static_cast<double>(points.size() - 2) / static_cast<double>(buckets);
  auto bucket_begin = [&](std::size_t b) { return 1 + static_cast<std::size_t>(std::floor(static_cast<double>(b) * width)); };
  std::vector<SeriesPoint> out{points.front()};
  out.reserve(max_points);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t begin = bucket_begin(b), end = bucket_begin(b + 1);
    const SeriesPoint next = b + 1 < buckets ? centroid(points, end, bucket_begin(b + 2)) : points.back();
    std::size_t pick = begin;
    double largest = -1;
    for (std::size_t i = begin; i < end; ++i) {
      const double area = triangle_area(out.back(), points[i], next);
      if (area > largest) largest = area, pick = i;
    }
    out.push_back(points[pick]);
  }
  out.push_back(points.back());
  return out;
}

}  // namespace volador::http
