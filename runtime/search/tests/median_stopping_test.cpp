#include <catch2/catch.hpp>

#include <limits>

#include "runtime/search/median_stopping.hpp"

using namespace volador::search;

TEST_CASE("Median stopping: best so far against the median of the others' running averages", "[search][median]") {
  MedianStoppingRule rule(2, 2);
  CHECK_FALSE(rule.report(1, 1, 4.0));
  CHECK_FALSE(rule.report(1, 2, 2.0));  // A: running average at 2 is 3
  CHECK_FALSE(rule.report(2, 1, 1.0));
  CHECK_FALSE(rule.report(2, 2, 3.0));  // B: 2; only one other trial so far
  CHECK_FALSE(rule.report(3, 1, 5.0));  // before start_batches
  CHECK_FALSE(rule.report(3, 2, 2.4));  // C: best 2.4 < median(3, 2) = 2.5
  CHECK_FALSE(rule.report(4, 2, 2.6));  // D: 2.6 < median(3, 2, 3.7) = 3
  CHECK(rule.report(5, 2, 3.5));        // E: 3.5 > median(3, 2, 3.7, 2.6) = 2.8
  CHECK_FALSE(rule.report(6, 2, 2.8));  // not strictly worse than median(3, 2, 3.7, 2.6, 3.5) = 3
  // At step 3 only trials that got there count.
  CHECK_FALSE(rule.report(1, 3, 9.0));
  CHECK_FALSE(rule.report(3, 3, 9.0));  // one other at step 3: not enough
  CHECK_FALSE(rule.report(4, 3, 9.0));  // best 2.6 < median(A: (4+2+9)/3 = 5, C: (5+2.4+9)/3 = 5.47)

  MedianStoppingRule restored(2, 2);
  REQUIRE(restored.load(nlohmann::json::parse(rule.save().dump())).has_value());
  CHECK(restored.save() == rule.save());
  CHECK(restored.report(7, 3, 5.4) == rule.report(7, 3, 5.4));
  CHECK_FALSE(restored.load(nlohmann::json{{1, "x"}}).has_value());
}

TEST_CASE("Median stopping: forgotten trials no longer count, infinite losses survive saving", "[search][median]") {
  MedianStoppingRule rule(1, 1);
  CHECK_FALSE(rule.report(1, 1, 1.0));
  CHECK(rule.report(2, 1, 2.0));
  rule.forget(1);
  CHECK_FALSE(rule.report(3, 1, 1.5));  // median of {2} only
  CHECK(rule.report(4, 1, std::numeric_limits<double>::infinity()));
  MedianStoppingRule restored(1, 1);
  REQUIRE(restored.load(nlohmann::json::parse(rule.save().dump())).has_value());
  CHECK(restored.save() == rule.save());
}
