#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "runtime/scheduling/fair_share.hpp"
#include "runtime/scheduling/slot_request.hpp"

using namespace volador::scheduling;

TEST_CASE("Ideal shares split a priority's slots by weight and never give more than asked") {
  struct Row {
    std::vector<ShareDemand> demands;
    double capacity;
    std::vector<double> shares;
  };
  const std::vector<Row> table{
      // Equal weights: an even split, whatever the queues' lengths.
      {{{42, 1, 1000}, {42, 1, 5}}, 10, {5, 5}},
      {{{42, 1, 1000}, {42, 1, 1000}}, 10, {5, 5}},
      // Weights 2:1.
      {{{42, 2, 100}, {42, 1, 100}}, 12, {8, 4}},
      // What one cannot use goes to the others, by weight.
      {{{42, 1, 2}, {42, 1, 100}, {42, 2, 100}}, 14, {2, 4, 8}},
      // Strict priority: 10 is served in full before 42 shares what is left.
      {{{42, 1, 100}, {10, 1, 6}, {42, 1, 100}}, 10, {2, 6, 2}},
      // Less demand than slots: everyone gets its demand.
      {{{42, 1, 3}, {50, 1, 4}}, 10, {3, 4}},
      {{}, 10, {}},
  };
  for (const auto& row : table) {
    const auto shares = ideal_shares(row.demands, row.capacity);
    REQUIRE(shares.size() == row.shares.size());
    for (std::size_t i = 0; i < shares.size(); ++i) CHECK(shares[i] == Approx(row.shares[i]));
  }
}

TEST_CASE("A same-priority preemption is fair only while the requester stays no more served than the victim") {
  // 4-slot gang of an experiment holding nothing, against one holding 12 (equal weights).
  CHECK(fair_to_take(0, 1, 4, 12, 1, 4));  // after: 4 against 8
  // The next gang: 8 against 4 would overshoot the even split.
  CHECK_FALSE(fair_to_take(4, 1, 4, 8, 1, 4));
  // The move back never qualifies: the victim, now at 8, taking 4 from 4.
  CHECK_FALSE(fair_to_take(8, 1, 4, 4, 1, 4));
  // Weights: an experiment of weight 3 may hold three times as much.
  CHECK(fair_to_take(5, 3, 1, 3, 1, 1));        // 6/3 = 2 against 2/1
  CHECK_FALSE(fair_to_take(8, 3, 1, 4, 1, 2));  // 3 against 2
}

TEST_CASE("A share is refused with the field at fault: an empty pool or a priority outside 1 to 99 or a weight not positive") {
  CHECK(validate_share({}));
  CHECK(validate_share({.priority = 1}));
  CHECK(validate_share({.priority = 99, .weight = 0.25}));
  struct Row {
    ExperimentShare share;
    std::string says;
  };
  const std::vector<Row> table{
      {{.pool = ""}, "resources.resource_pool"},
      {{.priority = 0}, "resources.priority: 0 is outside 1..99"},
      {{.priority = 100}, "resources.priority: 100"},
      {{.weight = 0}, "resources.weight"},
      {{.weight = -1}, "resources.weight"},
      {{.weight = std::numeric_limits<double>::quiet_NaN()}, "resources.weight"},
      {{.weight = std::numeric_limits<double>::infinity()}, "resources.weight"},
  };
  for (const auto& row : table) {
    auto valid = validate_share(row.share);
    REQUIRE_FALSE(valid);
    CHECK(valid.error().code == volador::ErrorCode::invalid_argument);
    CHECK_THAT(valid.error().message, Catch::Contains(row.says));
  }
}
