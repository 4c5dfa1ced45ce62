#include <catch2/catch.hpp>

#include "runtime/scheduling/tests/scheduler_fixture.hpp"

using namespace volador::scheduling;
using volador::scheduling::testing::queue;

TEST_CASE("Requests are granted whole, in order, while slots last") {
  SlotScheduler s;
  s.add_agent("a", 2);
  queue(s, 1, 1);
  queue(s, 2, 1);
  queue(s, 3, 1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].trial_id == 1);
  CHECK(granted[1].trial_id == 2);
  CHECK(s.pending() == 1);
  s.release(1);
  granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].trial_id == 3);
  CHECK(granted[0].placements == std::vector<Placement>{{"a", {0}}});  // slot 0, freed by trial 1
}

TEST_CASE("A request never gets a partial allocation, and smaller ones backfill") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 1);
  queue(s, 1, 4);  // more than the pool has now
  queue(s, 2, 2);
  queue(s, 3, 1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].trial_id == 2);
  CHECK(granted[0].placements == std::vector<Placement>{{"a", {0, 1}}});
  CHECK(granted[1].trial_id == 3);
  CHECK(granted[1].placements == std::vector<Placement>{{"b", {0}}});
  CHECK(s.pending() == 1);
  s.add_agent("c", 4);
  granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"c", {0, 1, 2, 3}}});
}

TEST_CASE("A trial larger than any agent takes whole idle agents, biggest first") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 4);
  s.add_agent("c", 2);
  queue(s, 1, 6);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"b", {0, 1, 2, 3}}, {"a", {0, 1}}});
  CHECK(s.free_slots("c") == 2);
  queue(s, 2, 3);  // c alone is too small and no other agent is idle
  CHECK(s.schedule().grants.empty());
  s.release(1);
  granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"b", {0, 1, 2}}});
}

TEST_CASE("A spanning trial does not take a host another trial already uses") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 2);
  queue(s, 1, 1);
  s.schedule().grants;
  queue(s, 2, 3);  // 3 slots are free in all, but a is half used
  CHECK(s.schedule().grants.empty());
  CHECK(s.pending() == 1);
}

TEST_CASE("Best fit keeps the larger agent free for a larger trial") {
  SlotScheduler s;
  s.add_agent("big", 4);
  s.add_agent("small", 1);
  queue(s, 1, 1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"small", {0}}});
}

TEST_CASE("Removing an agent reports the trials that lost their slots, on every agent they spanned") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 2);
  queue(s, 7, 4);
  REQUIRE(s.schedule().grants.size() == 1);
  auto lost = s.remove_agent("a");
  CHECK(lost == std::vector<TrialId>{7});
  CHECK(s.free_slots("b") == 2);
  CHECK(s.largest_trial() == 2);
  s.release(7);  // releasing after the agent is gone is harmless
  CHECK(s.free_slots("b") == 2);
  queue(s, 8, 1);
  CHECK(s.schedule().grants.size() == 1);
}

TEST_CASE("Releasing a pending request drops it from the queue") {
  SlotScheduler s;
  queue(s, 1, 1);
  CHECK(s.pending() == 1);
  s.release(1);
  CHECK(s.pending() == 0);
  s.add_agent("a", 1);
  CHECK(s.schedule().grants.empty());
}

TEST_CASE("Slots held by workers that outlived a master restart join their trial's allocation") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 2);
  CHECK(s.hold(7, "a", {0, 1}));
  CHECK(s.hold(7, "b", {1}));
  REQUIRE(s.allocation(7) != nullptr);
  CHECK(s.allocation(7)->slots() == 3);
  CHECK(s.free_slots("a") == 0);
  CHECK(s.free_slots("b") == 1);
  queue(s, 8, 2);
  CHECK(s.schedule().grants.empty());  // only one slot is free anywhere
  s.release(7);
  CHECK(s.free_slots("a") == 2);
  CHECK(s.allocation(7) == nullptr);
  CHECK(s.schedule().grants.size() == 1);
}

TEST_CASE("Held slots are refused for an unknown agent, beyond its free slots, or for a trial already queued") {
  SlotScheduler s;
  s.add_agent("a", 2);
  CHECK_FALSE(s.hold(1, "nowhere", {0}));
  CHECK_FALSE(s.hold(1, "a", {0, 1, 2}));
  s.add_agent("b", 0);
  queue(s, 2, 4);  // cannot fit: stays queued
  CHECK(s.schedule().grants.empty());
  CHECK_FALSE(s.hold(2, "a", {0}));
  CHECK(s.free_slots("a") == 2);
  CHECK(s.allocation(1) == nullptr);
}

TEST_CASE("Usage lists every agent with its pool and labels and used slots and the trials holding them") {
  SlotScheduler s;
  CHECK(s.usage().empty());
  s.add_agent("b", 4);
  s.add_agent("a", 2);
  s.add_agent({.agent_id = "c", .pool = "small", .labels = {{"rack", "r1"}}, .slot_kinds = {kCpuKind}});
  queue(s, 3, 6);  // whole idle agents of the default pool: b, then a
  queue(s, 5, 1);  // does not fit anywhere now: not listed
  queue(s, 9, 1, testing::experiment(2, kDefaultPriority, 1.0, "small"));  // c
  REQUIRE(s.schedule().grants.size() == 2);
  auto usage = s.usage();
  REQUIRE(usage.size() == 3);
  CHECK(usage[0].agent_id == "a");
  CHECK(usage[0].pool == kDefaultPool);
  CHECK(usage[0].slots() == 2);
  CHECK(usage[0].used_slots() == 2);
  CHECK(usage[0].trials() == std::vector<TrialSlots>{{3, 2}});
  CHECK(usage[1].agent_id == "b");
  CHECK(usage[1].used_slots() == 4);
  CHECK(usage[1].trials() == std::vector<TrialSlots>{{3, 4}});
  CHECK(usage[2].agent_id == "c");
  CHECK(usage[2].pool == "small");
  CHECK(usage[2].labels == std::map<std::string, std::string>{{"rack", "r1"}});
  CHECK(usage[2].trials() == std::vector<TrialSlots>{{9, 1}});

  s.release(3);
  CHECK(s.hold(7, "b", {3}));  // held slots count as used, in trial id order with the others
  queue(s, 8, 2);
  REQUIRE(s.schedule().grants.size() == 2);  // best fit: 5 to a, then 8 to b
  usage = s.usage();
  CHECK(usage[0].trials() == std::vector<TrialSlots>{{5, 1}});
  CHECK(usage[1].used_slots() == 3);
  CHECK(usage[1].trials() == std::vector<TrialSlots>{{7, 1}, {8, 2}});
  s.remove_agent("c");
  CHECK(s.usage().size() == 2);
}

TEST_CASE("Each trial gets its own slots, named by index, and freed ones are reused") {
  SlotScheduler s;
  s.add_agent("a", 4);
  queue(s, 1, 2);
  queue(s, 2, 1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].placements[0].slot_indices == std::vector<std::uint32_t>{0, 1});
  CHECK(granted[1].placements[0].slot_indices == std::vector<std::uint32_t>{2});
  s.release(1);
  queue(s, 3, 3);
  granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements[0].slot_indices == std::vector<std::uint32_t>{0, 1, 3});
  CHECK(s.usage()[0].slot_owners == std::vector<std::uint64_t>{3, 3, 2, 3});
}

TEST_CASE("A slot already in use cannot be held") {
  SlotScheduler s;
  s.add_agent("a", 2);
  queue(s, 1, 1);
  REQUIRE(s.schedule().grants.size() == 1);  // slot 0
  CHECK_FALSE(s.hold(2, "a", {0}));
  CHECK(s.hold(2, "a", {1}));
}

TEST_CASE("A trial's slots are of one kind, GPUs preferred to CPU slots") {
  SlotScheduler s;
  s.add_agent("cpu-box", 8);
  s.add_agent("gpu-box", std::vector<std::string>(2, "gpu:H100"));
  queue(s, 1, 2);  // fits the GPUs: taken there
  queue(s, 2, 2);  // the GPUs are gone: CPU slots
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].placements == std::vector<Placement>{{"gpu-box", {0, 1}}});
  CHECK(granted[1].placements == std::vector<Placement>{{"cpu-box", {0, 1}}});
}

TEST_CASE("A multi-host trial takes whole hosts of one GPU model, never mixing models") {
  SlotScheduler s;
  s.add_agent("a100-1", std::vector<std::string>(2, "gpu:A100"));
  s.add_agent("h100-1", std::vector<std::string>(2, "gpu:H100"));
  queue(s, 1, 4);  // 2 A100 + 2 H100 would fit, but not of one model
  CHECK(s.schedule().grants.empty());
  s.add_agent("h100-2", std::vector<std::string>(2, "gpu:H100"));
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"h100-1", {0, 1}}, {"h100-2", {0, 1}}});
}

TEST_CASE("A host with two GPU models offers each model's slots apart") {
  SlotScheduler s;
  s.add_agent("mixed", {"gpu:A100", "gpu:T4", "gpu:A100"});
  queue(s, 1, 2);
  queue(s, 2, 2);  // one T4 is left: never placed
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"mixed", {0, 2}}});
  CHECK(s.pending() == 1);
}

TEST_CASE("The largest trial the cluster could ever run counts slots of one kind") {
  SlotScheduler s;
  CHECK(s.largest_trial() == 0);
  s.add_agent("cpu", 6);
  s.add_agent("h100-1", std::vector<std::string>(4, "gpu:H100"));
  s.add_agent("h100-2", std::vector<std::string>(4, "gpu:H100"));
  s.add_agent("a100", std::vector<std::string>(2, "gpu:A100"));
  CHECK(s.largest_trial() == 8);  // both H100 hosts
  s.add_agent("mixed", {"cpu", "cpu", "cpu", "gpu:T4"});
  CHECK(s.largest_trial() == 8);  // 6 + 3 CPU slots: the mixed host is never whole CPU, 6 alone
}

TEST_CASE("A closed agent keeps its running trials but is given no new one until it is opened again") {
  SlotScheduler s;
  s.add_agent("a", 2);
  queue(s, 1, 1);
  REQUIRE(s.schedule().grants.size() == 1);
  s.set_agent_open("a", false);  // its work disk is full
  queue(s, 2, 1);
  CHECK(s.schedule().grants.empty());
  CHECK(s.allocation(1) != nullptr);
  s.add_agent("b", 1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"b", {0}}});
  queue(s, 3, 1);
  CHECK(s.schedule().grants.empty());
  s.set_agent_open("a", false);  // again: nothing changes
  s.release(1);                  // a slot freed on a closed agent stays closed
  CHECK(s.schedule().grants.empty());
  s.set_agent_open("a", true);
  granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].trial_id == 3);
  CHECK(granted[0].placements[0].agent_id == "a");
}

TEST_CASE("No trial is asked to leave a closed agent: the room would be refused") {
  testing::ManualClock time;
  SlotScheduler s{time.clock()};
  s.set_pool(kDefaultPool, {.preemption = true, .min_run_before_preemption_ms = 0});
  s.add_agent("a", 1);
  queue(s, 1, 1, testing::experiment(1, 60));
  REQUIRE(s.schedule().grants.size() == 1);
  s.set_agent_open("a", false);
  queue(s, 2, 1, testing::experiment(2, 10));
  const auto decision = s.schedule();
  CHECK(decision.grants.empty());
  CHECK(decision.preemptions.empty());
  s.set_agent_open("a", true);
  CHECK(testing::preempted(s.schedule()) == std::vector<TrialId>{1});
}
