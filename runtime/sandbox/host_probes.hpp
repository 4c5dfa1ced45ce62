#pragma once
// What an agent's host can do for its rank workers' sandboxes, found by
// trying it once at the agent's start.

#include <string>

#include "runtime/core/error.hpp"

namespace volador::sandbox {

// Builds and runs a minimal bubblewrap sandbox (bubblewrap_command.hpp)
// around /bin/true. Error unavailable saying what failed (bwrap missing, the
// kernel refusing namespaces) and how to fix it or run without sandboxes.
Status probe_bubblewrap();

// A container runtime that can run images here: podman, else docker, whose
// `info` succeeds (being on PATH is not enough: docker's client without a
// daemon fails there). Error unavailable listing why each one cannot.
Result<std::string> probe_container_runtime();

}  // namespace volador::sandbox
