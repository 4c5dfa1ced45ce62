#pragma once
// What an agent's host can do for its rank workers' sandboxes, found by
// trying it once at the agent's start.

#include "runtime/core/error.hpp"

namespace volador::sandbox {

// Builds and runs a minimal bubblewrap sandbox (bubblewrap_command.hpp)
// around /bin/true. Error unavailable saying what failed (bwrap missing, the
// kernel refusing namespaces) and how to fix it or run without sandboxes.
Status probe_bubblewrap();

}  // namespace volador::sandbox
