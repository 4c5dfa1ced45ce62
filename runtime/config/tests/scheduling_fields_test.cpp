// resources.resource_pool, priority and weight: what the scheduler is told.
#include "runtime/config/tests/config_test_support.hpp"

namespace volador::config::testing {
namespace {

TEST_CASE("resources.priority and weight default to 42 and 1 and are read with their pool", "[config][rules]") {
  const auto defaults = parse_ok(with("resources: {slots_per_trial: 1}\n")).resources;
  CHECK(defaults.priority == 42);
  CHECK(defaults.weight == 1.0);
  CHECK(defaults.resource_pool.empty());
  const auto set = parse_ok(with("resources: {resource_pool: gpus, priority: 10, weight: 2.5}\n")).resources;
  CHECK(set.resource_pool == "gpus");
  CHECK(set.priority == 10);
  CHECK(set.weight == 2.5);
  CHECK(parse_ok(with("resources: {priority: 1}\n")).resources.priority == 1);
  CHECK(parse_ok(with("resources: {priority: 99}\n")).resources.priority == 99);
}

TEST_CASE("resources.priority outside 1..99, a weight not above 0 and an empty pool are refused at their line",
          "[config][rules]") {
  check_bad_cases({
      {with("resources: {priority: 0}\n"),
       "distributed.yaml:10:23: resources.priority: expected an integer between 1 and 99, got 0"},
      {with("resources: {priority: 100}\n"),
       "distributed.yaml:10:23: resources.priority: expected an integer between 1 and 99, got 100"},
      {with("resources: {weight: 0}\n"),
       "distributed.yaml:10:21: resources.weight: expected a positive number (an experiment's share of its pool), "
       "got 0"},
      {with("resources: {weight: -1.5}\n"),
       "distributed.yaml:10:21: resources.weight: expected a positive number (an experiment's share of its pool), "
       "got -1.5"},
      {with("resources: {weight: heavy}\n"),
       "distributed.yaml:10:21: resources.weight: expected a number, got \"heavy\""},
      {with("resources: {resource_pool: ''}\n"),
       "distributed.yaml:10:28: resources.resource_pool: expected a non-empty string, got \"\""},
  });
}

}  // namespace
}  // namespace volador::config::testing
