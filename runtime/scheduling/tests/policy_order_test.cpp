// The order in which a pool serves its queue: pools, priority, weighted
// shares with gang rounding, creation order, and backfill that never delays
// a waiting gang.

#include <catch2/catch.hpp>

#include "runtime/scheduling/tests/scheduler_fixture.hpp"

using namespace volador::scheduling;
using namespace volador::scheduling::testing;

namespace {

// Slots each experiment holds now, by experiment id.
std::map<ExperimentId, std::uint32_t> held(const SlotScheduler& s, const std::string& pool = kDefaultPool) {
  std::map<ExperimentId, std::uint32_t> out;
  for (const auto& e : s.experiments(pool)) out[e.share.experiment_id] = e.allocated_slots;
  return out;
}

const PoolPolicy kNoPreemption{.preemption = false};

}  // namespace

TEST_CASE("The more important priority is served first whatever the order of the requests") {
  SlotScheduler s;
  s.add_agent("a", 2);
  queue(s, 1, 1, experiment(1, 50));
  queue(s, 2, 1, experiment(1, 50));
  queue(s, 3, 1, experiment(2, 10));
  queue(s, 4, 1, experiment(2, 10));
  queue(s, 5, 1, experiment(3, 42));
  CHECK(granted(s.schedule()) == std::vector<TrialId>{3, 4});
  s.release(3);
  CHECK(granted(s.schedule()) == std::vector<TrialId>{5});
  s.release(4);
  s.release(5);
  CHECK(granted(s.schedule()) == std::vector<TrialId>{1, 2});
}

TEST_CASE("Within an experiment trials go in creation order and not in request order") {
  SlotScheduler s;
  s.add_agent("a", 1);
  queue(s, 9, 1, experiment(1));
  queue(s, 4, 1, experiment(1));  // created earlier, asked later (a restart)
  CHECK(granted(s.schedule()) == std::vector<TrialId>{4});
}

TEST_CASE("Equal weights split a pool evenly: an experiment of 1000 trials does not starve a later one of 5") {
  SlotScheduler s;
  for (auto id : {"a", "b", "c", "d"}) s.add_agent(id, 2);
  for (TrialId t = 1; t <= 1000; ++t) queue(s, t, 1, experiment(1));
  for (TrialId t = 1001; t <= 1005; ++t) queue(s, t, 1, experiment(2));
  s.schedule();
  CHECK(held(s) == std::map<ExperimentId, std::uint32_t>{{1, 4}, {2, 4}});
  // A slot freed by the big experiment goes to the one below its share.
  s.release(1);
  queue(s, 1006, 1, experiment(3));
  CHECK(granted(s.schedule()) == std::vector<TrialId>{1006});
}

TEST_CASE("Weights 2 to 1 give two thirds and one third of the slots") {
  SlotScheduler s;
  s.add_agent("a", 12);
  for (TrialId t = 1; t <= 20; ++t) queue(s, t, 1, experiment(1, kDefaultPriority, 2.0));
  for (TrialId t = 21; t <= 40; ++t) queue(s, t, 1, experiment(2, kDefaultPriority, 1.0));
  s.schedule();
  CHECK(held(s) == std::map<ExperimentId, std::uint32_t>{{1, 8}, {2, 4}});
  const auto experiments = s.experiments(kDefaultPool);
  REQUIRE(experiments.size() == 2);
  CHECK(experiments[0].ideal_slots == Approx(8));
  CHECK(experiments[1].ideal_slots == Approx(4));
  CHECK(experiments[1].pending_trials == 16);
}

TEST_CASE("Shares round with gang sizes by the slots each experiment would then hold and not by trials") {
  struct Row {
    std::uint32_t gang_a;
    std::uint32_t gang_b;
    std::uint32_t agents_of_4;
    std::uint32_t held_a;
    std::uint32_t held_b;
  };
  const std::vector<Row> table{
      {4, 1, 2, 4, 4},  // 8 slots: one 4-slot gang and four 1-slot trials
      {4, 4, 3, 8, 4},  // 12 slots, ideal 6 and 6: the tie goes to the lower id, never 12 and 0
      {2, 1, 3, 6, 6},
      {4, 2, 4, 8, 8},
  };
  for (const auto& row : table) {
    CAPTURE(row.gang_a, row.gang_b, row.agents_of_4);
    SlotScheduler s;
    s.set_pool(kDefaultPool, kNoPreemption);
    for (std::uint32_t i = 0; i < row.agents_of_4; ++i) s.add_agent("agent-" + std::to_string(i), 4);
    for (TrialId t = 1; t <= 20; ++t) queue(s, t, row.gang_a, experiment(1));
    for (TrialId t = 21; t <= 40; ++t) queue(s, t, row.gang_b, experiment(2));
    s.schedule();
    CHECK(held(s) == std::map<ExperimentId, std::uint32_t>{{1, row.held_a}, {2, row.held_b}});
  }
}

TEST_CASE("Backfill never takes the slots a more important waiting gang will start on") {
  SlotScheduler s;
  s.set_pool(kDefaultPool, kNoPreemption);
  s.add_agent("a", 4);
  s.add_agent("b", 4);
  // Experiment 1 holds 2 slots of a and 3 of b.
  for (TrialId t = 1; t <= 5; ++t) queue(s, t, 1, experiment(1));
  REQUIRE(s.schedule().grants.size() == 5);
  s.release(2);
  s.release(4);  // now: a holds 1 and 3 (2 free), b holds 5 (3 free)... by best fit
  const auto free_a = s.free_slots("a");
  const auto free_b = s.free_slots("b");
  REQUIRE(free_a + free_b == 5);
  // A 4-slot gang of priority 10 waits: it claims the agent nearest to
  // fitting it. Priority-50 trials may only use the other agent's slots.
  queue(s, 10, 4, experiment(2, 10));
  for (TrialId t = 20; t <= 30; ++t) queue(s, t, 1, experiment(3, 50));
  const auto decision = s.schedule();
  const auto nearest = free_a >= free_b ? "a" : "b";
  const auto other = free_a >= free_b ? "b" : "a";
  CHECK(decision.grants.size() == std::min(free_a, free_b));
  for (const auto& grant : decision.grants) CHECK(grant.placements.front().agent_id == other);
  CHECK(s.free_slots(nearest) == std::max(free_a, free_b));
  // The gang starts as soon as its agent frees up, ahead of the queue.
  for (const auto& agent : s.usage())
    if (agent.agent_id == nearest)
      for (const auto& trial : agent.trials()) s.release(trial.trial_id);
  CHECK(granted(s.schedule()) == std::vector<TrialId>{10});
}

TEST_CASE("A waiting multi-host gang claims the whole agents nearest to idle and others backfill elsewhere") {
  SlotScheduler s;
  s.set_pool(kDefaultPool, kNoPreemption);
  s.add_agent("a", 2);
  s.add_agent("b", 2);
  s.add_agent("c", 2);
  queue(s, 1, 1, experiment(1));  // best fit: a
  queue(s, 2, 2, experiment(1));  // b
  REQUIRE(s.schedule().grants.size() == 2);
  s.release(1);                   // a idle, b full, c idle
  queue(s, 3, 1, experiment(9));  // a, say: then a and c are 1 and 0 from idle
  REQUIRE(s.schedule().grants.size() == 1);
  REQUIRE(s.free_slots("c") == 2);
  s.add_agent("g", std::vector<std::string>{"gpu:T4"});
  queue(s, 10, 4, experiment(2, 10));  // whole agents: c (idle) and the one of a or b nearest idle
  for (TrialId t = 20; t <= 25; ++t) queue(s, t, 1, experiment(3, 50));
  const auto decision = s.schedule();
  // Only the GPU slot is outside the claimed agents (GPU slots are preferred).
  REQUIRE(decision.grants.size() == 1);
  CHECK(decision.grants[0].placements == std::vector<Placement>{{"g", {0}}});
  CHECK(s.free_slots("c") == 2);
  s.release(3);
  CHECK(granted(s.schedule()) == std::vector<TrialId>{10});
}

TEST_CASE("A trial only gets slots of its experiment's pool and a pool without agents queues until one joins") {
  SlotScheduler s;
  s.add_agent("cpu-1", 4);
  queue(s, 1, 1, experiment(1, kDefaultPriority, 1.0, "gpus"));
  CHECK(s.schedule().grants.empty());
  CHECK(s.pending() == 1);
  CHECK(s.largest_trial("gpus") == 0);
  s.add_agent({.agent_id = "gpu-1", .pool = "gpus", .slot_kinds = {"gpu:H100", "gpu:H100"}});
  CHECK(s.largest_trial("gpus") == 2);
  const auto decision = s.schedule();
  REQUIRE(decision.grants.size() == 1);
  CHECK(decision.grants[0].placements == std::vector<Placement>{{"gpu-1", {0}}});
  const auto pools = s.pools();
  REQUIRE(pools.size() == 2);
  CHECK(pools[0].pool == kDefaultPool);
  CHECK(pools[0].slots == 4);
  CHECK(pools[0].used_slots == 0);
  CHECK(pools[1].pool == "gpus");
  CHECK(pools[1].agents == 1);
  CHECK(pools[1].used_slots == 1);
  CHECK(pools[1].running_trials == 1);
  CHECK(pools[1].pending_trials == 0);
}

TEST_CASE("A bad request is refused and queues nothing") {
  SlotScheduler s;
  s.add_agent("a", 1);
  CHECK_FALSE(s.request({.trial_id = 1, .slots = 0}));
  CHECK_FALSE(s.request({.trial_id = 2, .slots = 1, .share = {.priority = 0}}));
  CHECK_FALSE(s.request({.trial_id = 3, .slots = 1, .share = {.weight = 0}}));
  CHECK(s.pending() == 0);
  CHECK(s.schedule().grants.empty());
}

TEST_CASE("An experiment's latest request sets its priority for all its trials") {
  SlotScheduler s;
  s.add_agent("a", 1);
  queue(s, 1, 1, experiment(1, 50));
  queue(s, 2, 1, experiment(2, 40));
  queue(s, 3, 1, experiment(1, 30));  // experiment 1 moved to priority 30
  CHECK(granted(s.schedule()) == std::vector<TrialId>{1});
}
