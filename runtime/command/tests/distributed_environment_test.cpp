#include <catch2/catch.hpp>

#include "runtime/command/distributed_environment.hpp"

using namespace volador::command;

namespace {

EnvironmentVariables env_ok(const RankLayout& layout, std::size_t rank) {
  auto env = distributed_environment(layout, rank);
  if (!env) FAIL("unexpected error: " << env.error().message);
  return *env;
}

}  // namespace

TEST_CASE("one node with two ranks") {
  const RankLayout layout{{{"agent-a", "10.0.0.1"}, {"agent-a", "10.0.0.1"}}, 29500};
  CHECK(env_ok(layout, 1) == EnvironmentVariables{{"MASTER_ADDR", "10.0.0.1"},
                                                  {"MASTER_PORT", "29500"},
                                                  {"RANK", "1"},
                                                  {"WORLD_SIZE", "2"},
                                                  {"LOCAL_RANK", "1"},
                                                  {"LOCAL_WORLD_SIZE", "2"},
                                                  {"NODE_NUM", "1"},
                                                  {"INDEX", "0"},
                                                  {"GPU_NUM_PER_NODE", "2"},
                                                  {"CHIEF_IP", "10.0.0.1"}});
  CHECK(env_ok(layout, 0).at("LOCAL_RANK") == "0");
}

TEST_CASE("two nodes with two ranks each") {
  const RankLayout layout{
      {{"agent-a", "10.0.0.1"}, {"agent-a", "10.0.0.1"}, {"agent-b", "10.0.0.2"}, {"agent-b", "10.0.0.2"}}, 40000};
  CHECK(env_ok(layout, 3) == EnvironmentVariables{{"MASTER_ADDR", "10.0.0.1"},
                                                  {"MASTER_PORT", "40000"},
                                                  {"RANK", "3"},
                                                  {"WORLD_SIZE", "4"},
                                                  {"LOCAL_RANK", "1"},
                                                  {"LOCAL_WORLD_SIZE", "2"},
                                                  {"NODE_NUM", "2"},
                                                  {"INDEX", "1"},
                                                  {"GPU_NUM_PER_NODE", "2"},
                                                  {"CHIEF_IP", "10.0.0.1"}});
  const auto rank2 = env_ok(layout, 2);
  CHECK(rank2.at("LOCAL_RANK") == "0");
  CHECK(rank2.at("INDEX") == "1");
}

TEST_CASE("nodes are numbered in the order their first rank appears") {
  const RankLayout layout{{{"b", "h2"}, {"a", "h1"}, {"b", "h2"}}, 1};
  const auto rank1 = env_ok(layout, 1);
  CHECK(rank1.at("INDEX") == "1");
  CHECK(rank1.at("LOCAL_WORLD_SIZE") == "1");
  CHECK(rank1.at("CHIEF_IP") == "h2");
  const auto rank2 = env_ok(layout, 2);
  CHECK(rank2.at("INDEX") == "0");
  CHECK(rank2.at("LOCAL_RANK") == "1");
}

TEST_CASE("two agents on one host are two nodes") {
  const RankLayout layout{{{"agent-a", "127.0.0.1"}, {"agent-b", "127.0.0.1"}}, 5000};
  const auto rank1 = env_ok(layout, 1);
  CHECK(rank1.at("NODE_NUM") == "2");
  CHECK(rank1.at("LOCAL_RANK") == "0");
  CHECK(rank1.at("INDEX") == "1");
}

TEST_CASE("a bad layout is an error") {
  const RankLayout one{{{"a", "h"}}, 1};
  CHECK(distributed_environment(RankLayout{{}, 1}, 0).error().message == "the rank layout has no ranks");
  CHECK(distributed_environment(one, 1).error().message == "rank 1 is out of range for 1 ranks");
  CHECK(distributed_environment(RankLayout{{{"a", "h"}}, 0}, 0).error().message == "the master port is 0");
  CHECK(distributed_environment(RankLayout{{{"a", "h"}, {"a", ""}}, 1}, 0).error().message ==
        "rank 1 has no node or no host");
}
