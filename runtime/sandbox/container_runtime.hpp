#pragma once
// Which container runtime an agent runs environment.image with: the
// operator's choice (volador-node agent --container-runtime) and the programs
// it allows, tried in order at the agent's start (host_probes.hpp).

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::sandbox {

enum class ContainerRuntimeChoice { none, automatic, podman, docker };

// "none", "auto", "podman" or "docker"; invalid_argument naming the flag and the choices otherwise.
Result<ContainerRuntimeChoice> parse_container_runtime_choice(std::string_view text);

// The programs to try, best first: podman then docker for auto, the one
// named, none for none.
std::vector<std::string> runtime_candidates(ContainerRuntimeChoice choice);

}  // namespace volador::sandbox
