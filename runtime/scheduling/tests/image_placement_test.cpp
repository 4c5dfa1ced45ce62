// Trials that need container images (environment.image) in a pool where only
// some agents run them: placed, reserved and made room for on those agents
// alone, while trials without an image use any agent.

#include <catch2/catch.hpp>

#include "runtime/scheduling/tests/scheduler_fixture.hpp"

using namespace volador::scheduling;
using namespace volador::scheduling::testing;

namespace {

// An agent of `cpu_slots` CPU slots in the default pool, running images or not.
AgentSpec agent(std::string id, std::uint32_t cpu_slots, bool runs_images) {
  return {.agent_id = std::move(id), .slot_kinds = std::vector<std::string>(cpu_slots, kCpuKind),
          .runs_images = runs_images};
}

// Queues trial `trial_id` of `slots` slots that needs images.
void queue_image(SlotScheduler& s, TrialId trial_id, std::uint32_t slots, const ExperimentShare& share = {}) {
  REQUIRE(s.request({.trial_id = trial_id, .slots = slots, .share = share, .needs_images = true}));
}

}  // namespace

TEST_CASE("A trial that needs images goes only to an agent that runs them, one without an image to any agent") {
  SlotScheduler s;
  s.add_agent(agent("plain", 3, false));
  s.add_agent(agent("imaging", 4, true));
  queue_image(s, 1, 2);  // best fit would be "plain", the one with fewer free slots
  queue(s, 2, 3);
  queue_image(s, 3, 2);
  queue_image(s, 4, 1);  // "plain" is full, and could not take it anyway
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 3);
  CHECK(granted[0].placements == std::vector<Placement>{{"imaging", {0, 1}}});
  CHECK(granted[1].placements == std::vector<Placement>{{"plain", {0, 1, 2}}});
  CHECK(granted[2].placements == std::vector<Placement>{{"imaging", {2, 3}}});
  s.release(2);
  CHECK(s.schedule().grants.empty());  // "plain" is free, but runs no images
  CHECK(s.pending() == 1);
}

TEST_CASE("A multi-host trial that needs images takes only whole agents that run them") {
  SlotScheduler s;
  s.add_agent(agent("a-plain", 2, false));
  s.add_agent(agent("b-imaging", 2, true));
  s.add_agent(agent("c-plain", 2, false));
  queue_image(s, 1, 4);  // whole idle agents of 2 would hold it, but only one runs images
  CHECK(s.schedule().grants.empty());
  s.add_agent(agent("d-imaging", 2, true));
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"b-imaging", {0, 1}}, {"d-imaging", {0, 1}}});
}

TEST_CASE("A trial that needs images waits while no agent of its pool runs them, as one too big for any agent") {
  SlotScheduler s;
  s.add_agent(agent("plain", 2, false));
  queue_image(s, 1, 1, experiment(1));
  queue(s, 2, 1, experiment(2));
  CHECK(granted(s.schedule()) == std::vector<TrialId>{2});
  s.add_agent(agent("imaging", 1, true));
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"imaging", {0}}});
  // The only agent that runs images leaves: its trial asks again and waits.
  CHECK(s.remove_agent("imaging") == std::vector<TrialId>{1});
  queue_image(s, 1, 1, experiment(1));
  CHECK(s.schedule().grants.empty());
  CHECK(s.pending() == 1);
}

TEST_CASE("The largest trial that needs images counts only the agents that run them") {
  SlotScheduler s;
  s.add_agent(agent("plain", 8, false));
  CHECK(s.largest_trial(kDefaultPool, true) == 0);
  CHECK(s.largest_trial(kDefaultPool, false) == 8);
  s.add_agent(agent("imaging-1", 2, true));
  s.add_agent(agent("imaging-2", 3, true));
  CHECK(s.largest_trial(kDefaultPool, true) == 5);  // both whole
  CHECK(s.largest_trial(kDefaultPool, false) == 13);
  s.remove_agent("imaging-2");
  CHECK(s.largest_trial(kDefaultPool, true) == 2);
}

TEST_CASE("A blocked trial that needs images claims an agent that runs them while others backfill elsewhere") {
  SlotScheduler s;
  s.add_agent(agent("imaging", 2, true));
  s.add_agent(agent("z-plain", 3, false));
  queue(s, 1, 1, experiment(1));
  queue(s, 2, 2, experiment(1));
  REQUIRE(s.schedule().grants.size() == 2);  // 1 on imaging, 2 on z-plain: one slot free on each
  // First in order; blocked, it claims "imaging". Any agent would do for a
  // trial without an image, and then it would claim z-plain, as free and able to hold it.
  queue_image(s, 10, 2, experiment(2, 10));
  queue(s, 20, 1, experiment(3));
  queue(s, 21, 1, experiment(3));
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].trial_id == 20);
  CHECK(granted[0].placements == std::vector<Placement>{{"z-plain", {2}}});
  s.release(1);
  CHECK(testing::granted(s.schedule()) == std::vector<TrialId>{10});
}

TEST_CASE("A trial that needs images asks to leave only trials on agents that run them") {
  ManualClock time;
  SlotScheduler s{time.clock()};
  s.set_pool(kDefaultPool, {.preemption = true, .min_run_before_preemption_ms = 0});
  s.add_agent(agent("imaging", 1, true));
  s.add_agent(agent("plain", 1, false));
  queue(s, 1, 1, experiment(1, 60));
  queue(s, 2, 1, experiment(1, 60));
  REQUIRE(s.schedule().grants.size() == 2);  // 1 on imaging, 2 on plain
  queue_image(s, 10, 1, experiment(2, 10));
  CHECK(preempted(s.schedule()) == std::vector<TrialId>{1});  // 2, granted last, would be asked first
  s.release(1);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"imaging", {0}}});
}

TEST_CASE("A multi-host trial that needs images frees only whole agents that run them") {
  ManualClock time;
  SlotScheduler s{time.clock()};
  s.set_pool(kDefaultPool, {.preemption = true, .min_run_before_preemption_ms = 0});
  s.add_agent(agent("a-plain", 1, false));
  s.add_agent(agent("b-imaging", 1, true));
  s.add_agent(agent("c-imaging", 1, true));
  for (TrialId trial = 1; trial <= 3; ++trial) queue(s, trial, 1, experiment(1, 60));
  REQUIRE(s.schedule().grants.size() == 3);  // one on each agent
  queue_image(s, 10, 2, experiment(2, 10));
  auto decision = s.schedule();
  REQUIRE(decision.preemptions.size() == 2);
  for (const auto& preemption : decision.preemptions) {
    const auto* allocation = s.allocation(preemption.trial_id);
    REQUIRE(allocation != nullptr);
    CHECK(allocation->placements[0].agent_id != "a-plain");
  }
  for (const auto& preemption : decision.preemptions) s.release(preemption.trial_id);
  auto granted = s.schedule().grants;
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].placements == std::vector<Placement>{{"b-imaging", {0}}, {"c-imaging", {0}}});
}

TEST_CASE("A trial that needs images and finds no trial to ask to leave does not stop one without an image from asking") {
  ManualClock time;
  SlotScheduler s{time.clock()};
  s.set_pool(kDefaultPool, {.preemption = true, .min_run_before_preemption_ms = 0});
  s.add_agent(agent("imaging", 1, true));
  s.add_agent(agent("plain", 1, false));
  queue(s, 1, 1, experiment(1, 5));   // on imaging: more important than any newcomer
  queue(s, 2, 1, experiment(2, 60));  // on plain
  REQUIRE(s.schedule().grants.size() == 2);
  queue_image(s, 10, 1, experiment(3, 10));  // may not move trial 1, and trial 2 is not on an agent it can use
  queue(s, 20, 1, experiment(4, 20));        // after it in order, as big: trial 2 may leave for it
  const auto decision = s.schedule();
  CHECK(decision.preemptions == std::vector<Preemption>{{2, 4}});
}
