// The resource-pool actor in a real actor system, its agent a scoped actor
// that receives what the pool sends an agent.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/caf_error.hpp"
#include "actors/resource_pool_actor.hpp"
#include "runtime/config/cluster_config.hpp"
#include "runtime/wire/codec.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

// Longer than any test: held workers never expire here.
constexpr auto kReattachGrace = std::chrono::hours(1);

// `agent`'s registration; the pool's answer (true) is required.
void register_agent(caf::scoped_actor& agent, const PoolActor& pool, const wire::AgentInfo& info) {
  agent->request(pool, caf::infinite, register_atom::value, wire::encode(info), caf::actor(agent))
      .receive([](bool registered) { CHECK(registered); }, [](const caf::error& error) { FAIL(caf::to_string(error)); });
}

// Whether the pool told `agent` to kill a run's workers before it answered
// the question asked now: its messages to the agent arrive in order.
bool told_to_kill(caf::scoped_actor& agent, const PoolActor& pool) {
  agent->request(pool, caf::infinite, capacity_atom::value, std::string(), std::uint32_t{1}, std::uint64_t{0}, std::uint32_t{0}, std::vector<std::string>{})
      .receive([](const std::string&) {}, [](const caf::error& error) { FAIL(caf::to_string(error)); });
  bool killed = false;
  agent->receive([&](kill_atom, std::uint64_t, std::uint32_t) { killed = true; },
                 caf::after(std::chrono::seconds(0)) >> [] {});
  return killed;
}

}  // namespace

TEST_CASE("A registration an agent repeats changes nothing: the workers of its claimed run live on") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto pool = system.spawn(resource_pool_actor, std::chrono::duration_cast<std::chrono::milliseconds>(kReattachGrace),
                           config::ClusterConfig{});
  caf::scoped_actor agent{system};
  // Back from a master restart, it kept a worker of trial 7's run 3.
  const wire::AgentInfo info{"agent-a", "host", {wire::SlotSpec{}}, {{7, 3, 0, 0}}};
  register_agent(agent, pool, info);
  agent->request(pool, caf::infinite, adopt_atom::value, std::uint64_t{7}, std::uint32_t{3},
                 std::vector<std::string>{"agent-a"}, std::uint32_t{1}, scheduling::ExperimentShare{.experiment_id = 1})
      .receive([](const std::vector<GrantedAgent>& grant) { CHECK(grant.size() == 1); },
               [](const caf::error& error) { FAIL(caf::to_string(error)); });
  CHECK_FALSE(told_to_kill(agent, pool));
  // The first answer came late: the agent registers again, listing the same worker.
  register_agent(agent, pool, info);
  CHECK_FALSE(told_to_kill(agent, pool));
  anon_send_exit(pool, caf::exit_reason::user_shutdown);
}

TEST_CASE("Another agent under a registered agent's name is refused") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto pool = system.spawn(resource_pool_actor, std::chrono::milliseconds(50), config::ClusterConfig{});
  caf::scoped_actor first{system};
  caf::scoped_actor second{system};
  const wire::AgentInfo info{"agent-a", "host", {wire::SlotSpec{}}, {}};
  register_agent(first, pool, info);
  second->request(pool, caf::infinite, register_atom::value, wire::encode(info), caf::actor(second))
      .receive([](bool) { FAIL("registered twice"); }, [](const caf::error& error) { CHECK(error); });
  anon_send_exit(pool, caf::exit_reason::user_shutdown);
}

// The pool's answer to a new experiment of one slot setting the image `fields`: its pool, or why not.
std::string admission(caf::scoped_actor& client, const PoolActor& pool, std::vector<std::string> fields) {
  std::string answer;
  client->request(pool, caf::infinite, capacity_atom::value, std::string(), std::uint32_t{1}, std::uint64_t{0},
                  std::uint32_t{0}, std::move(fields))
      .receive([&](const std::string& admitted) { answer = admitted; },
               [&](const caf::error& error) { answer = from_caf_error(error).message; });
  return answer;
}

TEST_CASE("An image is admitted to a pool where an agent registered a container runtime, refused naming the pool otherwise") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto pool = system.spawn(resource_pool_actor, std::chrono::milliseconds(50), config::default_cluster_config());
  caf::scoped_actor agent{system};
  CHECK(admission(agent, pool, {"image"}) ==
        "environment.image: no agent in pool default can run images; remove environment.image or install podman");
  wire::AgentInfo with_podman{"podman", "host", {wire::SlotSpec{}}, {}};
  with_podman.container_runtime = "podman";
  register_agent(agent, pool, with_podman);
  CHECK(admission(agent, pool, {"image", "force_pull_image"}) == "default");
  caf::scoped_actor other{system};
  register_agent(other, pool, wire::AgentInfo{"plain", "host", {wire::SlotSpec{}}, {}});
  CHECK(admission(agent, pool, {"image"}) == "default");  // its trials go to "podman" alone
  CHECK(admission(agent, pool, {}) == "default");
  caf::anon_send_exit(pool, caf::exit_reason::user_shutdown);
}

TEST_CASE("A trial that needs images is granted the slot of the agent with a container runtime, never the other's") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto pool = system.spawn(resource_pool_actor, std::chrono::duration_cast<std::chrono::milliseconds>(kReattachGrace),
                           config::default_cluster_config());
  caf::scoped_actor plain{system};
  caf::scoped_actor imaging{system};
  register_agent(plain, pool, {"a-plain", "host", {wire::SlotSpec{}}, {}});
  wire::AgentInfo with_podman{"b-podman", "host", {wire::SlotSpec{}}, {}};
  with_podman.container_runtime = "podman";
  register_agent(imaging, pool, with_podman);
  caf::scoped_actor trial{system};
  auto granted_agent = [&](std::uint64_t trial_id, bool needs_images) {
    trial->send(pool, request_slots_atom::value, trial_id, std::uint32_t{1},
                scheduling::ExperimentShare{.experiment_id = trial_id}, needs_images,
                caf::actor_cast<TrialActor>(caf::actor(trial)));
    std::string agent_id;
    trial->receive([&](granted_atom, const std::vector<GrantedAgent>& grant) { agent_id = grant.at(0).agent_id; },
                   caf::after(std::chrono::seconds(10)) >> [] { FAIL("no grant"); });
    return agent_id;
  };
  CHECK(granted_agent(1, true) == "b-podman");  // "a-plain" comes first for any other trial
  CHECK(granted_agent(2, false) == "a-plain");
  caf::anon_send_exit(pool, caf::exit_reason::user_shutdown);
}

TEST_CASE("A more important trial preempts a running one once it has run its minimum time though nothing else happens") {
  caf::actor_system_config config;
  caf::actor_system system{config};
  constexpr auto kMinRun = std::chrono::milliseconds(300);
  auto cluster = config::default_cluster_config();
  cluster.pools[0].scheduler.min_run_time = kMinRun;
  auto pool = system.spawn(resource_pool_actor, std::chrono::duration_cast<std::chrono::milliseconds>(kReattachGrace),
                           cluster);
  caf::scoped_actor agent{system};
  caf::scoped_actor low{system};
  caf::scoped_actor high{system};
  register_agent(agent, pool, {"agent-a", "host", {wire::SlotSpec{}}, {}});
  auto ask_for_slot = [&](caf::scoped_actor& trial, std::uint64_t trial_id, int priority) {
    trial->send(pool, request_slots_atom::value, trial_id, std::uint32_t{1},
                scheduling::ExperimentShare{.experiment_id = trial_id, .priority = priority}, false,
                caf::actor_cast<TrialActor>(caf::actor(trial)));
  };
  auto wait_for_grant = [](caf::scoped_actor& trial) {
    trial->receive([](granted_atom, const std::vector<GrantedAgent>& grant) { CHECK(grant.size() == 1); },
                   caf::after(std::chrono::seconds(10)) >> [] { FAIL("no grant"); });
  };

  const auto asked_at = std::chrono::steady_clock::now();
  ask_for_slot(low, 1, 50);
  wait_for_grant(low);
  // Before the low trial has run its minimum time, with no other event to come.
  ask_for_slot(high, 2, 10);
  bool preempted = false;
  low->receive(
      [&](preempt_atom, std::uint64_t for_experiment) {
        preempted = true;
        CHECK(for_experiment == 2);
      },
      caf::after(std::chrono::seconds(10)) >> [] {});
  REQUIRE(preempted);
  CHECK(std::chrono::steady_clock::now() - asked_at >= kMinRun);
  low->send(pool, release_atom::value, std::uint64_t{1});
  wait_for_grant(high);
  anon_send_exit(pool, caf::exit_reason::user_shutdown);
}
