#include <catch2/catch.hpp>

#include "actors/idle_workers.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

constexpr std::int64_t kLimitMs = 5000;

wire::LaunchSpec launch(std::uint64_t experiment, std::uint32_t slot, std::uint64_t trial = 1) {
  wire::LaunchSpec spec;
  spec.trial_id = trial;
  spec.experiment_id = experiment;
  spec.slot = slot;
  spec.entrypoint = "/bin/echo loss=1";
  spec.environment_variables = {"A=1"};
  spec.hparams_json = "{\"lr\": " + std::to_string(trial) + "}";
  spec.token = "token-" + std::to_string(trial);
  return spec;
}

WorkerReuseKey key_of(const wire::LaunchSpec& spec) { return reuse_key(spec, "127.0.0.1:17080"); }

}  // namespace

TEST_CASE("An idle worker takes the next launch of its experiment on its slot, whatever the trial") {
  IdleWorkers idle(kLimitMs);
  CHECK_FALSE(idle.park(7, key_of(launch(3, 0, 1)), 0));
  const auto claim = idle.claim(key_of(launch(3, 0, 2)));  // another trial, run, token and hyperparameters
  CHECK(claim.reuse == 7u);
  CHECK_FALSE(claim.end);
  CHECK(idle.size() == 0);
  CHECK_FALSE(idle.claim(key_of(launch(3, 0, 3))).reuse);  // taken: the next launch spawns
}

TEST_CASE("A launch that differs in what a worker carries over ends the idle worker of its slot instead") {
  auto other_entrypoint = launch(3, 0), other_environment = launch(3, 0);
  other_entrypoint.entrypoint = "native:mlp";
  other_environment.environment_variables = {"A=2"};
  for (const auto& [what, key] : std::vector<std::pair<std::string, WorkerReuseKey>>{
           {"experiment", key_of(launch(4, 0))},
           {"entrypoint", key_of(other_entrypoint)},
           {"environment", key_of(other_environment)},
           {"master", reuse_key(launch(3, 0), "10.0.0.1:17080")}}) {
    INFO(what);
    IdleWorkers idle(kLimitMs);
    idle.park(7, key_of(launch(3, 0)), 0);
    const auto claim = idle.claim(key);
    CHECK_FALSE(claim.reuse);
    CHECK(claim.end == 7u);
    CHECK(idle.size() == 0);
  }
}

TEST_CASE("Idle workers are kept one per slot and never cross slots") {
  IdleWorkers idle(kLimitMs);
  idle.park(1, key_of(launch(3, 0)), 0);
  idle.park(2, key_of(launch(3, 1)), 0);
  CHECK(idle.park(3, key_of(launch(3, 1)), 10) == 2u);  // displaced: end it
  CHECK(idle.size() == 2);
  const auto on_slot_2 = idle.claim(key_of(launch(3, 2)));
  CHECK_FALSE(on_slot_2.reuse);
  CHECK_FALSE(on_slot_2.end);
  CHECK(idle.claim(key_of(launch(3, 1))).reuse == 3u);
  CHECK(idle.claim(key_of(launch(3, 0))).reuse == 1u);
}

TEST_CASE("Idle workers expire after the idle limit, by the time given") {
  IdleWorkers idle(kLimitMs);
  idle.park(1, key_of(launch(3, 0)), 1000);
  idle.park(2, key_of(launch(3, 1)), 3000);
  CHECK(idle.expire(1000 + kLimitMs - 1).empty());
  CHECK(idle.expire(1000 + kLimitMs) == std::vector<IdleWorkers::WorkerId>{1});
  CHECK(idle.size() == 1);
  CHECK_FALSE(idle.claim(key_of(launch(3, 0))).reuse);  // expired: no longer there
  CHECK(idle.expire(3000 + kLimitMs) == std::vector<IdleWorkers::WorkerId>{2});
  CHECK(idle.size() == 0);
}

TEST_CASE("A worker that ended or that the agent ends while idle is forgotten") {
  IdleWorkers idle(kLimitMs);
  idle.park(1, key_of(launch(3, 0)), 0);
  idle.park(2, key_of(launch(3, 1)), 0);
  CHECK(idle.forget(1));
  CHECK_FALSE(idle.forget(1));
  CHECK_FALSE(idle.claim(key_of(launch(3, 0))).reuse);
  CHECK(idle.take_all() == std::vector<IdleWorkers::WorkerId>{2});
  CHECK(idle.size() == 0);
}
