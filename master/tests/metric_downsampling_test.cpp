// Downsampling a trial's reports on read: each series bounded, its first,
// last, smallest and largest points kept, everything on request.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "master/metric_downsampling.hpp"

using namespace volador;
using volador::master::downsample_reports;

namespace {

storage::MetricRecord report(MetricKind kind, std::uint64_t batches, MetricMap metrics) {
  return {.trial_id = 1, .kind = kind, .batches = batches, .metrics = std::move(metrics), .reported_at_ms = 0};
}

// `count` validation reports of accuracy (a noisy rise) and loss; `spike_at` holds the largest accuracy.
std::vector<storage::MetricRecord> curve(std::size_t count, std::size_t spike_at) {
  std::vector<storage::MetricRecord> reports;
  for (std::size_t i = 0; i < count; ++i) {
    const double x = static_cast<double>(i);
    const double accuracy = i == spike_at ? 2.0 : 0.5 + 0.3 * std::sin(x / 7) * (x / static_cast<double>(count));
    reports.push_back(report(MetricKind::validation, (i + 1) * 10, {{"accuracy", accuracy}, {"loss", 1 - accuracy}}));
  }
  return reports;
}

// The points of one series in the output.
std::vector<std::pair<std::uint64_t, double>> series(const std::vector<wire::MetricPoint>& points, MetricKind kind,
                                                     const std::string& name) {
  std::vector<std::pair<std::uint64_t, double>> out;
  for (const auto& p : points)
    if (p.kind == kind && p.metrics.contains(name)) out.emplace_back(p.batches, p.metrics.at(name));
  return out;
}

}  // namespace

TEST_CASE("Each series keeps at most max_points points with its first and last and its extremes") {
  const auto reports = curve(10'000, 4321);
  for (std::size_t max_points : {5u, 6u, 100u, 1000u, 9999u}) {
    CAPTURE(max_points);
    const auto cut = downsample_reports(reports, max_points);
    CHECK(cut.downsampled);
    for (const std::string name : {"accuracy", "loss"}) {
      const auto points = series(cut.points, MetricKind::validation, name);
      CHECK(points.size() <= max_points);
      CHECK(points.size() >= std::min<std::size_t>(max_points, 3));
      CHECK(points.front().first == 10);
      CHECK(points.back().first == 100'000);
      CHECK(std::ranges::is_sorted(points));
    }
    // The spike is the largest accuracy and the smallest loss: both series keep it.
    CHECK(std::ranges::max(series(cut.points, MetricKind::validation, "accuracy"),
                           {}, &std::pair<std::uint64_t, double>::second).second == 2.0);
    CHECK(std::ranges::min(series(cut.points, MetricKind::validation, "loss"),
                           {}, &std::pair<std::uint64_t, double>::second).second == -1.0);
  }
}

TEST_CASE("Short series are kept whole and every point comes on request") {
  std::vector<storage::MetricRecord> reports = curve(50, 10);
  reports.push_back(report(MetricKind::training, 5, {{"loss", 0.3}}));
  SECTION("nothing is longer than max_points: every report as it is") {
    const auto kept = downsample_reports(reports, 50);
    CHECK_FALSE(kept.downsampled);
    REQUIRE(kept.points.size() == reports.size());
    CHECK(kept.points[3].metrics == reports[3].metrics);
  }
  SECTION("0 asks for every point") {
    const auto big = curve(20'000, 1);
    const auto kept = downsample_reports(big, 0);
    CHECK_FALSE(kept.downsampled);
    CHECK(kept.points.size() == 20'000);
  }
  SECTION("a long series is cut while a short one of another kind is kept whole") {
    const auto kept = downsample_reports(reports, 10);
    CHECK(kept.downsampled);
    CHECK(series(kept.points, MetricKind::validation, "accuracy").size() <= 10);
    CHECK(series(kept.points, MetricKind::training, "loss") == std::vector<std::pair<std::uint64_t, double>>{{5, 0.3}});
  }
  SECTION("max_points below the minimum is taken as the minimum") {
    const auto points = series(downsample_reports(reports, 1).points, MetricKind::validation, "accuracy");
    CHECK(points.size() <= master::kMinPointsPerSeries);
    CHECK(points.size() > 2);
  }
}

TEST_CASE("No reports give no points") {
  const auto kept = downsample_reports({}, 1000);
  CHECK(kept.points.empty());
  CHECK_FALSE(kept.downsampled);
}
