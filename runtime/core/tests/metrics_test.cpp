#include <catch2/catch.hpp>

#include "runtime/core/metrics.hpp"

using volador::MetricAverager;

TEST_CASE("MetricAverager averages each metric over the batches that reported it") {
  MetricAverager avg;
  avg.add({{"loss", 1.0}, {"accuracy", 0.5}});
  avg.add({{"loss", 3.0}});
  auto mean = avg.mean();
  CHECK(mean.at("loss") == Approx(2.0));
  CHECK(mean.at("accuracy") == Approx(0.5));
}

TEST_CASE("MetricAverager merge weights by batch count, not by rank") {
  MetricAverager a, b;
  a.add({{"loss", 1.0}});
  b.add({{"loss", 2.0}});
  b.add({{"loss", 6.0}});
  a.merge(b);
  CHECK(a.mean().at("loss") == Approx(3.0));
}

TEST_CASE("An empty MetricAverager has no metrics") {
  MetricAverager avg;
  CHECK(avg.empty());
  CHECK(avg.mean().empty());
}
