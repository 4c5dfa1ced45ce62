#include <catch2/catch.hpp>

#include "actors/slot_waits.hpp"

using namespace volador::actors;

TEST_CASE("Launches waiting for one slot start in arrival order, each slot apart") {
  SlotWaits waits;
  const auto first = waits.wait(0, 0, 1000);
  const auto other_slot = waits.wait(1, 1, 1000);
  const auto second = waits.wait(0, 2, 1000);
  CHECK(waits.next(0, 10) == first);
  CHECK(waits.next(0, 20) == second);
  CHECK_FALSE(waits.next(0, 30));
  CHECK(waits.next(1, 40) == other_slot);
  CHECK_FALSE(waits.next(1, 50));
}

TEST_CASE("The rank holding a slot is overdue once the first launch in line has waited out its patience, reported once") {
  SlotWaits waits;
  waits.wait(0, 0, 1000);
  waits.wait(0, 500, 1000);  // behind the first: its patience has not started
  waits.wait(1, 600, 5000);
  CHECK(waits.overdue(999).empty());
  CHECK(waits.overdue(1000) == std::vector<std::uint32_t>{0});
  CHECK(waits.overdue(5000).empty());  // slot 0 reported already, slot 1 not due yet
  CHECK(waits.overdue(5600) == std::vector<std::uint32_t>{1});
}

TEST_CASE("A launch's patience starts when it becomes first in line, not when it arrived") {
  SlotWaits waits;
  waits.wait(0, 0, 1000);
  const auto second = waits.wait(0, 100, 1000);
  REQUIRE(waits.next(0, 3000));  // the first started after a long wait; the second is first from 3000
  CHECK(waits.overdue(3999).empty());
  CHECK(waits.overdue(4000) == std::vector<std::uint32_t>{0});
  CHECK(waits.next(0, 4100) == second);
}

TEST_CASE("A cancelled launch leaves the line, and the one behind it becomes first") {
  SlotWaits waits;
  const auto first = waits.wait(0, 0, 1000);
  const auto second = waits.wait(0, 0, 1000);
  CHECK(waits.cancel(first, 2000));
  CHECK_FALSE(waits.cancel(first, 2000));
  CHECK(waits.overdue(2999).empty());  // the second's patience started at the cancellation
  CHECK(waits.overdue(3000) == std::vector<std::uint32_t>{0});
  CHECK(waits.next(0, 3100) == second);
  CHECK_FALSE(waits.next(0, 3200));
}
