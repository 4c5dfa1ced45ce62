#include <catch2/catch.hpp>

#include <limits>

#include "runtime/search/median_stopping.hpp"

using namespace volador::search;

TEST_CASE("Median stopping: best so far against the median of the others' best so far at that length",
          "[search][median]") {
  MedianStoppingRule rule(2, 2);
  CHECK_FALSE(rule.report(1, 1, 4.0));  // before start_batches
  CHECK_FALSE(rule.report(1, 2, 2.0));  // A: best 2 at 2; no other trial yet
  CHECK_FALSE(rule.report(2, 1, 1.0));
  CHECK_FALSE(rule.report(2, 2, 3.0));  // B: best 1 at 2 (from step 1); only one other trial
  CHECK(rule.report(3, 2, 2.4));        // C: 2.4 > median(A 2, B 1) = 1.5
  CHECK_FALSE(rule.report(4, 2, 1.5));  // D: 1.5 < median(2, 1, 2.4) = 2
  CHECK(rule.report(5, 2, 2.2));        // E: 2.2 > median(2, 1, 2.4, 1.5) = 1.75
  CHECK_FALSE(rule.report(6, 2, 2.0));  // not strictly worse than median(2, 1, 2.4, 1.5, 2.2) = 2
  // At step 3 only trials that got there count, each with its best up to 3.
  CHECK_FALSE(rule.report(1, 3, 9.0));  // A: best 2; no other trial at 3
  CHECK_FALSE(rule.report(3, 3, 9.0));  // C: one other at 3: not enough
  CHECK_FALSE(rule.report(4, 3, 9.0));  // D: best 1.5 (from step 2) < median(A 2, C 2.4) = 2.2, its 9 aside
  CHECK(rule.report(7, 3, 2.3));        // 2.3 > median(A 2, C 2.4, D 1.5) = 2

  MedianStoppingRule restored(2, 2);
  REQUIRE(restored.load(nlohmann::json::parse(rule.save().dump())).has_value());
  CHECK(restored.save() == rule.save());
  CHECK(restored.report(8, 3, 2.1) == rule.report(8, 3, 2.1));
  CHECK_FALSE(restored.load(nlohmann::json{{1, "x"}}).has_value());
}

TEST_CASE("Median stopping: on decreasing learning curves the worse ones stop", "[search][median]") {
  // Running averages lag behind decreasing curves: against the others' running
  // averages (Vizier's and Ray's rule) none of these would stop (issue 18).
  MedianStoppingRule rule(2, 2);
  for (std::uint64_t step = 1; step <= 3; ++step) {
    CHECK_FALSE(rule.report(1, step, 10.0 / static_cast<double>(step * step)));   // 10, 2.5, 1.1
    CHECK_FALSE(rule.report(2, step, 11.0 / static_cast<double>(step * step)));   // 11, 2.75, 1.2
  }
  CHECK_FALSE(rule.report(3, 1, 12.0));
  CHECK(rule.report(3, 2, 3.0));  // 3 > median(2.5, 2.75); the running averages were 6.25 and 6.875
  CHECK_FALSE(rule.report(4, 1, 10.5));
  CHECK_FALSE(rule.report(4, 2, 2.6));  // 2.6 < median(2.5, 2.75, 3) = 2.75
  CHECK(rule.report(4, 3, 1.5));        // 1.5 > median(1.11, 1.22) at 3; the averages were 4.5 and 4.98
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
