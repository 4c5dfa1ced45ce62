// resources.memory_limit and resources.max_processes: a rank's limits.
#include "runtime/config/tests/config_test_support.hpp"

namespace volador::config::testing {
namespace {

TEST_CASE("A rank's limits are left to its agent unless set", "[config][limits]") {
  const auto resources = parse_ok(with("resources: {slots_per_trial: 1}\n")).resources;
  CHECK(resources.memory_limit == 0);
  CHECK(resources.max_processes == 0);
}

TEST_CASE("resources.memory_limit is a size and max_processes a count", "[config][limits]") {
  const auto resources = parse_ok(with("resources: {memory_limit: 64M, max_processes: 64}\n")).resources;
  CHECK(resources.memory_limit == 64ull << 20);
  CHECK(resources.max_processes == 64);
  CHECK(parse_ok(with("resources: {memory_limit: 1.5G}\n")).resources.memory_limit == 3ull << 29);
}

TEST_CASE("A bad limit is refused at its line", "[config][limits]") {
  check_bad_cases({
      {with("resources: {memory_limit: lots}\n"),
       "distributed.yaml:10:27: resources.memory_limit: expected a positive size in bytes such as 4294967296, 128M or "
       "1.5G, got \"lots\""},
      {with("resources: {memory_limit: 0}\n"),
       "distributed.yaml:10:27: resources.memory_limit: expected a positive size in bytes such as 4294967296, 128M or "
       "1.5G, got 0"},
      {with("resources: {max_processes: 4}\n"),
       "distributed.yaml:10:28: resources.max_processes: expected an integer of at least 8, got 4"},
      {with("resources: {max_processes: -1}\n"),
       "distributed.yaml:10:28: resources.max_processes: expected an integer of at least 8, got -1"},
  });
}

}  // namespace
}  // namespace volador::config::testing
