// Which running trials a pool asks to checkpoint and release their slots,
// and the minimum run that keeps preemption from thrashing.

#include <catch2/catch.hpp>

#include "runtime/scheduling/tests/scheduler_fixture.hpp"

using namespace volador::scheduling;
using namespace volador::scheduling::testing;

namespace {

constexpr std::int64_t kMinRun = 60'000;

struct Pool {
  ManualClock time;
  SlotScheduler s{time.clock()};
  Pool() { s.set_pool(kDefaultPool, {.preemption = true, .min_run_before_preemption_ms = kMinRun}); }
};

}  // namespace

TEST_CASE("A more important experiment has the least important trials asked to leave and then starts on their slots") {
  Pool p;
  p.s.add_agent("a", 2);
  p.s.add_agent("b", 2);
  queue(p.s, 1, 1, experiment(1, 60));
  queue(p.s, 2, 1, experiment(1, 60));
  queue(p.s, 3, 1, experiment(2, 50));
  queue(p.s, 4, 1, experiment(2, 50));
  REQUIRE(p.s.schedule().grants.size() == 4);  // priority 50 first: 3 and 4 on a, 1 and 2 on b
  p.time.advance(kMinRun);
  queue(p.s, 10, 2, experiment(3, 10));
  auto decision = p.s.schedule();
  CHECK(decision.grants.empty());
  // Priority 60 goes before 50: both of experiment 1's trials, on b.
  CHECK(decision.preemptions == std::vector<Preemption>{{2, 3}, {1, 3}});
  CHECK(p.s.pools()[0].preempting_trials == 2);
  // Asked once: not asked again, and nothing else is asked while they leave.
  decision = p.s.schedule();
  CHECK(decision.preemptions.empty());
  CHECK(decision.grants.empty());
  p.s.release(1);
  CHECK(p.s.schedule().grants.empty());  // one slot of two
  p.s.release(2);
  decision = p.s.schedule();
  REQUIRE(granted(decision) == std::vector<TrialId>{10});
  CHECK(decision.grants[0].placements == std::vector<Placement>{{"b", {0, 1}}});
  // The preempted trials ask again: they wait, nothing more is preempted
  // for them (they are less important), and they resume when slots free.
  queue(p.s, 1, 1, experiment(1, 60));
  queue(p.s, 2, 1, experiment(1, 60));
  p.time.advance(kMinRun);
  CHECK(p.s.schedule().preemptions.empty());
  p.s.release(10);
  CHECK(granted(p.s.schedule()) == std::vector<TrialId>{1, 2});
}

TEST_CASE("No trial is asked to leave before it has run the minimum time on its slots so nothing thrashes") {
  Pool p;
  p.s.add_agent("a", 1);
  queue(p.s, 1, 1, experiment(1, 50));
  REQUIRE(p.s.schedule().grants.size() == 1);
  queue(p.s, 2, 1, experiment(2, 10));
  p.time.advance(kMinRun - 1);
  CHECK(p.s.schedule().preemptions.empty());
  p.time.advance(1);
  CHECK(p.s.schedule().preemptions == std::vector<Preemption>{{1, 2}});
  p.s.release(1);
  REQUIRE(granted(p.s.schedule()) == std::vector<TrialId>{2});
  // Trial 2 was just granted: an even more important experiment waits out its minimum run.
  queue(p.s, 3, 1, experiment(3, 1));
  p.time.advance(kMinRun - 1);
  CHECK(p.s.schedule().preemptions.empty());
  p.time.advance(1);
  CHECK(preempted(p.s.schedule()) == std::vector<TrialId>{2});
}

TEST_CASE("A trial that waits only on a running trial's minimum run is decided again when that run passes it") {
  Pool p;
  p.s.add_agent("a", 2);
  p.s.add_agent("b", 1);
  queue(p.s, 1, 2, experiment(1, 50));  // a
  REQUIRE(granted(p.s.schedule()) == std::vector<TrialId>{1});
  const auto trial_1_eligible = *p.time.now_ms + kMinRun;
  p.time.advance(kMinRun / 3);
  queue(p.s, 10, 2, experiment(2, 10));  // needs a, where trial 1 is too young to leave
  queue(p.s, 20, 1, experiment(3, 60));  // backfills b
  auto decision = p.s.schedule();
  CHECK(granted(decision) == std::vector<TrialId>{20});
  CHECK(decision.preemptions.empty());
  CHECK(decision.decide_again_at_ms == trial_1_eligible);
  // Asked again before then, with nothing new: the same answer and the same time.
  p.time.advance(1);
  decision = p.s.schedule();
  CHECK(decision.preemptions.empty());
  CHECK(decision.decide_again_at_ms == trial_1_eligible);
  *p.time.now_ms = trial_1_eligible;
  decision = p.s.schedule();
  CHECK(decision.preemptions == std::vector<Preemption>{{1, 2}});
  CHECK_FALSE(decision.decide_again_at_ms);
}

TEST_CASE("A trial that waits for another reason than a minimum run is not decided again on a timer") {
  Pool p;
  p.s.add_agent("a", 1);
  SECTION("the running trial is more important") {
    queue(p.s, 1, 1, experiment(1, 10));
    REQUIRE(p.s.schedule().grants.size() == 1);
    queue(p.s, 2, 1, experiment(2, 50));
  }
  SECTION("the pool does not preempt") {
    p.s.set_pool(kDefaultPool, {.preemption = false});
    queue(p.s, 1, 1, experiment(1, 50));
    REQUIRE(p.s.schedule().grants.size() == 1);
    queue(p.s, 2, 1, experiment(2, 10));
  }
  SECTION("the running trial is of the same experiment") {
    queue(p.s, 1, 1, experiment(1, 50));
    REQUIRE(p.s.schedule().grants.size() == 1);
    queue(p.s, 2, 1, experiment(1, 50));
  }
  const auto decision = p.s.schedule();
  CHECK(decision.preemptions.empty());
  CHECK_FALSE(decision.decide_again_at_ms);
}

TEST_CASE("An experiment under its share takes slots from one of the same priority over it up to the even split") {
  Pool p;
  p.s.add_agent("a", 4);
  p.s.add_agent("b", 4);
  for (TrialId t = 1; t <= 8; ++t) queue(p.s, t, 1, experiment(1));
  REQUIRE(p.s.schedule().grants.size() == 8);
  p.time.advance(kMinRun);
  for (TrialId t = 11; t <= 20; ++t) queue(p.s, t, 1, experiment(2));
  // One decision chooses all four (8 and 0 become 4 and 4); the most
  // recently granted first, here the highest ids.
  auto decision = p.s.schedule();
  CHECK(preempted(decision).size() == 4);
  for (const auto& preemption : decision.preemptions) CHECK(preemption.for_experiment == 2);
  // Until they leave, nothing more is chosen.
  CHECK(p.s.schedule().preemptions.empty());
  for (auto trial : preempted(decision)) p.s.release(trial);
  CHECK(granted(p.s.schedule()) == std::vector<TrialId>{11, 12, 13, 14});
  // Even now, long after: 4 and 4 is fair, and the move back is never fair.
  p.time.advance(10 * kMinRun);
  for (TrialId t = 1; t <= 8; ++t)
    if (p.s.allocation(t) == nullptr) queue(p.s, t, 1, experiment(1));
  decision = p.s.schedule();
  CHECK(decision.preemptions.empty());
  CHECK(decision.grants.empty());
}

TEST_CASE("Weighted fairness preemption stops at the weighted split rounded to whole gangs") {
  Pool p;
  for (auto id : {"a", "b", "c"}) p.s.add_agent(id, 4);
  for (TrialId t = 1; t <= 12; ++t) queue(p.s, t, 1, experiment(1, kDefaultPriority, 1.0));
  REQUIRE(p.s.schedule().grants.size() == 12);
  p.time.advance(kMinRun);
  // Weight 2 of 3 and 4-slot gangs: ideal 8; each gang is fair while
  // (held + 4) / 2 <= (12 - taken) / 1: the first (2 <= 8) and the second
  // (4 <= 4), not a third (6 <= 0).
  for (TrialId t = 21; t <= 30; ++t) queue(p.s, t, 4, experiment(2, kDefaultPriority, 2.0));
  const auto decision = p.s.schedule();
  CHECK(decision.preemptions.size() == 8);
}

TEST_CASE("Preemption spares the requester's own trials and more important ones and held ones and pools that turn it off") {
  SECTION("its own experiment and more important ones") {
    Pool p;
    p.s.add_agent("a", 2);
    queue(p.s, 1, 1, experiment(1, 10));
    queue(p.s, 2, 1, experiment(2, 50));
    REQUIRE(p.s.schedule().grants.size() == 2);
    p.time.advance(kMinRun);
    queue(p.s, 3, 2, experiment(2, 50));  // needs both slots: 1 is more important, 2 its own
    CHECK(p.s.schedule().preemptions.empty());
  }
  SECTION("held slots not yet claimed, then claimed") {
    Pool p;
    p.s.add_agent("a", 1);
    REQUIRE(p.s.hold(1, "a", {0}));
    p.time.advance(kMinRun);
    queue(p.s, 2, 1, experiment(2, 10));
    CHECK(p.s.schedule().preemptions.empty());
    REQUIRE(p.s.attribute(1, experiment(1, 50)));
    CHECK(p.s.schedule().preemptions == std::vector<Preemption>{{1, 2}});
    CHECK(p.s.experiments(kDefaultPool)[0].allocated_slots == 1);
  }
  SECTION("a pool whose policy turns it off") {
    Pool p;
    p.s.set_pool(kDefaultPool, {.preemption = false});
    p.s.add_agent("a", 1);
    queue(p.s, 1, 1, experiment(1, 50));
    REQUIRE(p.s.schedule().grants.size() == 1);
    p.time.advance(10 * kMinRun);
    queue(p.s, 2, 1, experiment(2, 1));
    CHECK(p.s.schedule().preemptions.empty());
  }
  SECTION("another pool's trials") {
    Pool p;
    p.s.add_agent({.agent_id = "a", .pool = "other", .slot_kinds = {kCpuKind}});
    p.s.add_agent("b", 1);
    queue(p.s, 1, 1, experiment(1, 50, 1.0, "other"));
    REQUIRE(p.s.schedule().grants.size() == 1);
    p.time.advance(kMinRun);
    queue(p.s, 2, 1, experiment(2, 1, 1.0, "other"));
    queue(p.s, 3, 1, experiment(3, 1));
    const auto decision = p.s.schedule();
    CHECK(granted(decision) == std::vector<TrialId>{3});
    CHECK(decision.preemptions == std::vector<Preemption>{{1, 2}});
  }
}

TEST_CASE("Victims are the most recently granted trials that make room on one agent and a multi-host gang frees whole agents") {
  SECTION("one agent") {
    Pool p;
    p.s.add_agent("a", 4);
    p.s.add_agent("b", 4);
    queue(p.s, 1, 3, experiment(1, 50));  // a
    queue(p.s, 2, 2, experiment(1, 50));  // b
    queue(p.s, 3, 1, experiment(1, 50));  // a
    REQUIRE(p.s.schedule().grants.size() == 3);
    p.time.advance(kMinRun);
    queue(p.s, 10, 3, experiment(2, 10));  // 3 (on a) then 2 (on b, 2 free): b holds 3 first
    CHECK(preempted(p.s.schedule()) == std::vector<TrialId>{2});
  }
  SECTION("whole agents") {
    Pool p;
    for (auto id : {"a", "b", "c"}) p.s.add_agent(id, 2);
    queue(p.s, 1, 2, experiment(1, 50));  // a
    queue(p.s, 2, 1, experiment(1, 50));  // b
    queue(p.s, 3, 2, experiment(1, 50));  // c
    REQUIRE(p.s.schedule().grants.size() == 3);
    p.time.advance(kMinRun);
    queue(p.s, 10, 4, experiment(2, 10));  // b (1 busy) and a or c (2 busy)
    const auto decision = p.s.schedule();
    CHECK(decision.preemptions.size() == 2);
    CHECK(preempted(decision)[0] == 2);
    for (auto trial : preempted(decision)) p.s.release(trial);
    CHECK(granted(p.s.schedule()) == std::vector<TrialId>{10});
  }
}

TEST_CASE("A gang whose preemption search found nothing searches again once a release or a joining agent or the minimum run changes the answer") {
  Pool p;
  p.s.add_agent("a", 2);
  p.s.add_agent("b", 2);
  auto place = [&](TrialId trial, const ExperimentShare& share, const std::string& agent) {
    queue(p.s, trial, 1, share);
    REQUIRE(granted(p.s.schedule()) == std::vector<TrialId>{trial});
    REQUIRE(p.s.allocation(trial)->placements[0].agent_id == agent);
  };
  place(1, experiment(1, 50), "a");
  place(2, experiment(3, 10), "a");
  place(3, experiment(3, 10), "b");
  p.time.advance(kMinRun);
  place(4, experiment(1, 50), "b");
  // Experiment 2 (priority 10) needs both slots of one agent: experiment
  // 3's trials are as important and no more served, trial 4 is too young,
  // and trial 1 alone does not empty a.
  queue(p.s, 10, 2, experiment(2, 10));
  CHECK(p.s.schedule().preemptions.empty());
  CHECK(p.s.schedule().preemptions.empty());  // nothing changed: the same answer
  SECTION("a release on its agent") {
    // Trial 2 leaves a: trial 1 alone now stands between the gang and a.
    p.s.release(2);
    CHECK(p.s.schedule().preemptions == std::vector<Preemption>{{1, 2}});
    p.s.release(1);
    const auto decision = p.s.schedule();
    REQUIRE(granted(decision) == std::vector<TrialId>{10});
    CHECK(decision.grants[0].placements == std::vector<Placement>{{"a", {0, 1}}});
  }
  SECTION("a trial passing its minimum run") {
    // Trial 3 leaves b: trial 4 alone stands between the gang and b, but
    // it is too young until its minimum run has passed.
    p.s.release(3);
    CHECK(p.s.schedule().preemptions.empty());
    p.time.advance(kMinRun - 1);
    CHECK(p.s.schedule().preemptions.empty());
    p.time.advance(1);
    CHECK(p.s.schedule().preemptions == std::vector<Preemption>{{4, 2}});
  }
  SECTION("an agent joining") {
    p.s.add_agent("c", 2);
    CHECK(granted(p.s.schedule()) == std::vector<TrialId>{10});
  }
}
