#include <catch2/catch.hpp>

#include "runtime/core/states.hpp"

using namespace volador;

TEST_CASE("Run states round-trip through their user-visible names") {
  for (auto s : {RunState::active, RunState::paused, RunState::completed, RunState::canceled, RunState::error})
    CHECK(parse_run_state(to_string(s)) == s);
  CHECK(to_string(RunState::error) == "ERROR");
  CHECK_FALSE(parse_run_state("RUNNING").has_value());
}

TEST_CASE("Only completed, canceled and error are terminal") {
  CHECK_FALSE(is_terminal(RunState::active));
  CHECK_FALSE(is_terminal(RunState::paused));
  CHECK(is_terminal(RunState::completed));
  CHECK(is_terminal(RunState::canceled));
  CHECK(is_terminal(RunState::error));
}

TEST_CASE("Enums have an upper-case name for users and a lower-case one for flags and prose") {
  CHECK(to_string(SlotType::gpu) == "GPU");
  CHECK(lowercase_name(SlotType::cpu) == "cpu");
  CHECK(lowercase_name(MetricKind::validation) == "validation");
  CHECK(parse_slot_type("GPU") == SlotType::gpu);
  CHECK_FALSE(parse_slot_type("gpu").has_value());
}
