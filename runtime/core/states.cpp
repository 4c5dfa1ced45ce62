#include "runtime/core/states.hpp"

namespace volador {

bool is_terminal(RunState state) {
  return state == RunState::completed || state == RunState::canceled || state == RunState::error;
}

}  // namespace volador
