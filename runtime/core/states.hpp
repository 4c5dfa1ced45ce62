#pragma once
// Lifecycle states of experiments and trials, as users see them. RunState,
// to_string ("ACTIVE", "PAUSED", "COMPLETED", "CANCELED", "ERROR") and
// parse_run_state are generated from schemas/states.capnp.

#include <algorithm>
#include <cctype>
#include <string>

#include "schemas/states.records.hpp"

namespace volador {

// An enum's name in lower case ("cpu", "validation"), as flags, environment
// variables and prose spell it; to_string gives the upper-case name users
// see in states and JSON.
template <class Enum>
std::string lowercase_name(Enum value) {
  std::string out(to_string(value));
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// True for COMPLETED, CANCELED and ERROR: nothing more will happen.
bool is_terminal(RunState state);

}  // namespace volador
