#include <catch2/catch.hpp>

#include "runtime/scheduling/held_run.hpp"

using namespace volador::scheduling;

namespace {

std::vector<std::uint32_t> first_slots(std::uint32_t count) {
  std::vector<std::uint32_t> indices(count);
  for (std::uint32_t i = 0; i < count; ++i) indices[i] = i;
  return indices;
}

Allocation allocation_of(std::uint32_t slots_a, std::uint32_t slots_b) {
  Allocation allocation{7, {{"a", first_slots(slots_a)}}};
  if (slots_b > 0) allocation.placements.push_back({"b", first_slots(slots_b)});
  return allocation;
}

}  // namespace

TEST_CASE("A claim waits until every agent of the run has registered") {
  const RunClaim claim{3, {"a", "b"}, 4};
  const HeldRun held{3, {"a"}};
  const auto allocation = allocation_of(2, 0);
  CHECK(judge_claim(claim, &held, &allocation, {"a"}) == ClaimVerdict::wait);
  CHECK(judge_claim(claim, nullptr, nullptr, {}) == ClaimVerdict::wait);
}

TEST_CASE("A claim is granted when all the run's ranks are held on its agents") {
  const RunClaim claim{3, {"b", "a"}, 4};
  const HeldRun held{3, {"a", "b"}};
  const auto allocation = allocation_of(2, 2);
  CHECK(judge_claim(claim, &held, &allocation, {"a", "b", "c"}) == ClaimVerdict::grant);
}

TEST_CASE("A claim is refused when the run did not survive whole") {
  const RunClaim claim{3, {"a", "b"}, 4};
  const std::set<std::string> registered{"a", "b"};
  SECTION("an agent came back without the trial's workers") {
    const HeldRun held{3, {"a"}};
    const auto allocation = allocation_of(2, 0);
    CHECK(judge_claim(claim, &held, &allocation, registered) == ClaimVerdict::refuse);
  }
  SECTION("a rank's worker ended during the outage") {
    const HeldRun held{3, {"a", "b"}};
    const auto allocation = allocation_of(2, 1);
    CHECK(judge_claim(claim, &held, &allocation, registered) == ClaimVerdict::refuse);
  }
  SECTION("the held workers belong to another run") {
    const HeldRun held{2, {"a", "b"}};
    const auto allocation = allocation_of(2, 2);
    CHECK(judge_claim(claim, &held, &allocation, registered) == ClaimVerdict::refuse);
  }
  SECTION("nothing is held") {
    CHECK(judge_claim(claim, nullptr, nullptr, registered) == ClaimVerdict::refuse);
  }
}
