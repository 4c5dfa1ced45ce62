#pragma once
// Lifecycle states of experiments and trials, as users see them.

#include <optional>
#include <string_view>

namespace volador {

enum class RunState { active, paused, completed, canceled, error };

// "ACTIVE", "PAUSED", "COMPLETED", "CANCELED", "ERROR".
std::string_view to_string(RunState state);

// Inverse of to_string; nullopt for an unknown name.
std::optional<RunState> parse_run_state(std::string_view name);

// True for COMPLETED, CANCELED and ERROR: nothing more will happen.
bool is_terminal(RunState state);

}  // namespace volador
