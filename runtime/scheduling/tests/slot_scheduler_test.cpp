#include <catch2/catch.hpp>

#include "runtime/scheduling/slot_scheduler.hpp"

using namespace volador::scheduling;

TEST_CASE("Requests are granted whole, in order, while slots last") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.request(1, 1);
  s.request(2, 1);
  s.request(3, 1);
  auto granted = s.schedule();
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].trial_id == 1);
  CHECK(granted[1].trial_id == 2);
  CHECK(s.pending() == 1);
  s.release(1);
  granted = s.schedule();
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].trial_id == 3);
  CHECK(granted[0].agent_id == "a");
}

TEST_CASE("A request never gets a partial allocation, and smaller ones backfill") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.add_agent("b", 1);
  s.request(1, 3);  // fits on no single agent
  s.request(2, 2);
  auto granted = s.schedule();
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].trial_id == 2);
  CHECK(granted[0].agent_id == "a");
  CHECK(s.free_slots("b") == 1);
  CHECK(s.pending() == 1);
}

TEST_CASE("Best fit keeps the larger agent free for a larger trial") {
  SlotScheduler s;
  s.add_agent("big", 4);
  s.add_agent("small", 1);
  s.request(1, 1);
  auto granted = s.schedule();
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].agent_id == "small");
}

TEST_CASE("Removing an agent reports the trials that lost their slots") {
  SlotScheduler s;
  s.add_agent("a", 2);
  s.request(7, 2);
  s.schedule();
  auto lost = s.remove_agent("a");
  CHECK(lost == std::vector<TrialId>{7});
  CHECK(s.total_slots() == 0);
  s.release(7);  // releasing after the agent is gone is harmless
  s.request(8, 1);
  CHECK(s.schedule().empty());
}

TEST_CASE("Releasing a pending request drops it from the queue") {
  SlotScheduler s;
  s.request(1, 1);
  CHECK(s.pending() == 1);
  s.release(1);
  CHECK(s.pending() == 0);
  s.add_agent("a", 1);
  CHECK(s.schedule().empty());
}
