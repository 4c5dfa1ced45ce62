#pragma once
// Ranks of an experiment with environment.image: the agent runs each one's
// worker in a container of that image (runtime/sandbox/image_command.hpp)
// instead of a bubblewrap sandbox, with the same mounts, devices, /dev/shm
// and working folder (rank_sandbox). The worker is the host's
// volador-worker, run through the host's loader and libraries shown under
// /run/volador/host, so an image needs only /bin/sh; a Python trial runs the
// image's interpreter at the agent's python path. The rank's memory and
// process limits go to the runtime (--memory, --pids-limit): its client is
// not in the rank's cgroup. The container is named after the agent process
// and the worker, and removed by name when the worker's process ends,
// whatever ended it. Image ranks are never kept warm.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "runtime/core/error.hpp"
#include "runtime/sandbox/container_runtime.hpp"
#include "runtime/sandbox/rank_cgroup.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// The container runtime of an agent about to start (`choice`: its
// --container-runtime), logged: what it found, or why it runs no images.
// Error (the agent refuses to start) when the runtime it names does not
// answer, or the worker's libraries cannot be listed.
Result<sandbox::ContainerSetup> prepare_image_ranks(const AgentOptions& options, sandbox::ContainerRuntimeChoice choice);

// The name of worker `worker`'s container: unique on the host while this agent process runs.
std::string container_name(const AgentOptions& options, std::uint64_t worker);

// The command that runs `spec`'s rank worker (`python_trial`: the
// interpreter; else volador-worker), after `prelude` (shell text ending in
// "; "), in a container of spec.image, seeing what rank_sandbox shows from
// `home` and `dir`, with `limits` (0s: none) and the variables of `env` by
// name. Writes the registry credentials, if any, where
// registry_auth_folder() says. Errors: the agent runs no images (naming
// it), a mount rank_sandbox refuses, the credentials cannot be written.
Result<std::vector<std::string>> image_rank_command(const AgentOptions& options, const wire::LaunchSpec& spec,
                                                    std::uint64_t worker, const std::filesystem::path& home,
                                                    const std::filesystem::path& dir, const std::string& prelude,
                                                    bool python_trial, const sandbox::RankLimits& limits,
                                                    const std::map<std::string, std::string>& env);

// Where worker `worker`'s registry credentials lie (a folder of its own, outside what the container sees).
std::filesystem::path registry_auth_folder(const AgentOptions& options, std::uint64_t worker);

// What remains of an image rank once its worker's process ended: its container and credentials.
struct ImageRankRemains {
  std::string agent_id, runtime, container;
  std::filesystem::path auth_folder;
};
ImageRankRemains image_rank_remains(const AgentOptions& options, std::uint64_t worker);

// Removes the container (it may outlive a killed client) and the
// credentials. Blocks until the runtime answers or a bounded time passes; a
// failure is logged.
void remove_image_rank(const ImageRankRemains& remains);

}  // namespace volador::actors
