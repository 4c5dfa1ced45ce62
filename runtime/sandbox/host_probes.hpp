#pragma once
// What an agent's host can do for its rank workers' sandboxes, found by
// trying it once at the agent's start.

#include <filesystem>
#include <string>

#include "runtime/core/error.hpp"
#include "runtime/sandbox/container_runtime.hpp"

namespace volador::sandbox {

// Builds and runs a minimal bubblewrap sandbox (bubblewrap_command.hpp)
// around /bin/true. Error unavailable saying what failed (bwrap missing, the
// kernel refusing namespaces) and how to fix it or run without sandboxes.
Status probe_bubblewrap();

// The first of `choice`'s runtimes that is on PATH and answers
// runtime_probe_command within 10 s (a hung daemon counts as none), set up to run `worker_program`'s image
// ranks (container_runtime.hpp); an empty runtime for none, or for auto when
// none answers (`why_none` then says why each failed). Error unavailable
// when the runtime named (podman, docker) does not answer, or when ldd cannot
// list the worker's libraries.
Result<ContainerSetup> probe_container_runtime(ContainerRuntimeChoice choice, const std::filesystem::path& worker_program,
                                               std::string& why_none);

// `program`'s loader and library folders as ldd lists them, links resolved
// (host_libraries.hpp). Error unavailable when ldd fails or a library is missing.
Result<HostLibraries> host_libraries_of(const std::filesystem::path& program);

// Removes container `name` of `runtime` whatever its state
// (container_removal_command), waiting for the runtime at most as long as a
// probe. Error unavailable saying how the removal failed.
Status remove_container(const std::string& runtime, const std::string& name);

// Removes every container of `runtime` that owner `owner` labelled
// (owned_containers_command), whatever its state; returns how many.
// Error unavailable saying how listing or a removal failed.
Result<std::size_t> remove_owned_containers(const std::string& runtime, const std::string& owner);

}  // namespace volador::sandbox
