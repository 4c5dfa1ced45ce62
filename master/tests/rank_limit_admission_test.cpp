#include <catch2/catch.hpp>

#include "master/rank_limit_admission.hpp"

using namespace volador;
using namespace volador::master;

namespace {

wire::AgentInfo agent(std::uint64_t memory_limit, std::uint32_t max_processes) {
  wire::AgentInfo info;
  info.memory_limit_bytes = memory_limit;
  info.max_processes = max_processes;
  return info;
}

}  // namespace

TEST_CASE("Rank limits within what the most generous agent of the pool allows are admitted") {
  const std::vector<wire::AgentInfo> agents{agent(1ull << 30, 100), agent(4ull << 30, 4096)};
  CHECK(check_rank_limits("p", agents, 4ull << 30, 4096));
  CHECK(check_rank_limits("p", agents, 0, 0));  // the agents' own limits
}

TEST_CASE("A memory limit or process count no agent of the pool allows is refused naming the field and the most") {
  const std::vector<wire::AgentInfo> agents{agent(1ull << 30, 100), agent(2ull << 30, 64)};
  auto memory = check_rank_limits("gpu", agents, 3ull << 30, 0);
  REQUIRE_FALSE(memory);
  CHECK(memory.error().code == ErrorCode::invalid_argument);
  CHECK(memory.error().message ==
        "resources.memory_limit: 3072 MiB is more than any agent of pool gpu allows a rank (at most 2048 MiB)");
  auto processes = check_rank_limits("gpu", agents, 0, 101);
  REQUIRE_FALSE(processes);
  CHECK(processes.error().message ==
        "resources.max_processes: 101 is more than any agent of pool gpu allows a rank (at most 100)");
}

TEST_CASE("An agent without limits, or a pool without agents, refuses no rank limit") {
  CHECK(check_rank_limits("p", {agent(1ull << 30, 100), agent(0, 0)}, 64ull << 30, 100000));
  CHECK(check_rank_limits("p", {}, 64ull << 30, 100000));
}
