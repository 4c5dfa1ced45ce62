#pragma once
// bubblewrap (Debian's `bwrap`) as the tool that builds a rank's sandbox.

#include <string>
#include <vector>

#include "runtime/sandbox/sandbox_spec.hpp"

namespace volador::sandbox {

// The command line that runs `command` in `spec`'s sandbox: new PID, IPC and
// cgroup namespaces and no capabilities (uid 0 stays uid 0 but cannot mount,
// trace or create devices); the process dies with its parent. The caller's
// environment passes through but for spec.hidden_variables. The sandboxed
// processes stay in the caller's process group, so signalling the group
// reaches them all (no --new-session).
std::vector<std::string> bubblewrap_command(const SandboxSpec& spec, const std::vector<std::string>& command);

}  // namespace volador::sandbox
