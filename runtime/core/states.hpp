#pragma once
// Lifecycle states of experiments and trials, as users see them. RunState,
// to_string ("ACTIVE", "PAUSED", "COMPLETED", "CANCELED", "ERROR") and
// parse_run_state are generated from schemas/states.capnp.

#include "schemas/states.records.hpp"

namespace volador {

// True for COMPLETED, CANCELED and ERROR: nothing more will happen.
bool is_terminal(RunState state);

}  // namespace volador
