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

TEST_CASE("Agents without limits hold no rank to one: a limit asked of a pool of only those is refused saying so") {
  const std::vector<wire::AgentInfo> unlimited{agent(0, 0), agent(0, 0)};
  auto memory = check_rank_limits("p", unlimited, 64ull << 20, 0);
  REQUIRE_FALSE(memory);
  CHECK(memory.error().message ==
        "resources.memory_limit: no agent of pool p enforces it: each runs its ranks without limits "
        "(--no-trial-limits, or no usable cgroups: see its log); remove the field or start an agent that can");
  auto processes = check_rank_limits("p", unlimited, 0, 64);
  REQUIRE_FALSE(processes);
  CHECK(processes.error().message.starts_with("resources.max_processes: no agent of pool p enforces it"));
  CHECK(check_rank_limits("p", unlimited, 0, 0));  // asking for none
  // Beside an agent that enforces limits, the most that one allows.
  CHECK(check_rank_limits("p", {agent(1ull << 30, 100), agent(0, 0)}, 1ull << 30, 100));
  CHECK_FALSE(check_rank_limits("p", {agent(1ull << 30, 100), agent(0, 0)}, 64ull << 30, 0));
}

TEST_CASE("A pool without agents refuses no rank limit: its trials wait for agents") {
  CHECK(check_rank_limits("p", {}, 64ull << 30, 100000));
}
