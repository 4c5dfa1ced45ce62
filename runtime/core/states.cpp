#include "runtime/core/states.hpp"

#include <array>
#include <utility>

namespace volador {
namespace {
constexpr std::array<std::pair<RunState, std::string_view>, 5> kNames{{
    {RunState::active, "ACTIVE"},
    {RunState::paused, "PAUSED"},
    {RunState::completed, "COMPLETED"},
    {RunState::canceled, "CANCELED"},
    {RunState::error, "ERROR"},
}};
}  // namespace

std::string_view to_string(RunState state) {
  for (const auto& [s, name] : kNames)
    if (s == state) return name;
  return "UNKNOWN";
}

std::optional<RunState> parse_run_state(std::string_view name) {
  for (const auto& [s, n] : kNames)
    if (n == name) return s;
  return std::nullopt;
}

bool is_terminal(RunState state) {
  return state == RunState::completed || state == RunState::canceled || state == RunState::error;
}

}  // namespace volador
