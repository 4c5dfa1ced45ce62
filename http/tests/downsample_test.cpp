#include <catch2/catch.hpp>

#include <cmath>

#include "http/downsample.hpp"

using volador::http::downsample;
using volador::http::SeriesPoint;

namespace {
std::vector<SeriesPoint> line(std::size_t n, double (*f)(double)) {
  std::vector<SeriesPoint> points;
  for (std::size_t i = 0; i < n; ++i) points.push_back({static_cast<double>(i), f(static_cast<double>(i))});
  return points;
}
}  // namespace

TEST_CASE("A series no longer than the limit comes back whole") {
  auto points = line(10, [](double x) { return x * x; });
  CHECK(downsample(points, 10) == points);
  CHECK(downsample(points, 500) == points);
  CHECK(downsample({}, 5).empty());
}

TEST_CASE("A long series is cut to the limit and keeps its first and last point in order") {
  auto points = line(100'000, [](double x) { return std::sin(x / 1000); });
  auto out = downsample(points, 500);
  REQUIRE(out.size() == 500);
  CHECK(out.front() == points.front());
  CHECK(out.back() == points.back());
  for (std::size_t i = 1; i < out.size(); ++i) CHECK(out[i - 1].x < out[i].x);
}

TEST_CASE("A lone spike in a long flat series survives downsampling") {
  auto points = line(10'000, [](double) { return 1.0; });
  points[6'789].y = 50;
  auto out = downsample(points, 100);
  bool spike = false;
  for (const auto& p : out) spike = spike || p.y == 50;
  CHECK(spike);
}

TEST_CASE("A limit below three is taken as three") {
  auto points = line(10, [](double x) { return x; });
  auto out = downsample(points, 1);
  REQUIRE(out.size() == 3);
  CHECK(out.front().x == 0);
  CHECK(out.back().x == 9);
}
