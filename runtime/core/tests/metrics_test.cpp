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

TEST_CASE("MetricAverager weights each batch, e.g. by its records") {
  MetricAverager avg;
  avg.add({{"accuracy", 1.0}}, 3);
  avg.add({{"accuracy", 0.0}}, 1);
  CHECK(avg.mean().at("accuracy") == Approx(0.75));
  CHECK(avg.sums().at("accuracy").weight == 4);
}

TEST_CASE("An empty MetricAverager has no metrics") {
  MetricAverager avg;
  CHECK(avg.empty());
  CHECK(avg.mean().empty());
}
