#pragma once
// Ranks of an experiment with environment.image: the agent runs each one's
// worker in a container of that image (runtime/sandbox/image_command.hpp)
// instead of a bubblewrap sandbox, with the same mounts, devices, /dev/shm
// and working folder (rank_sandbox). The worker is the host's
// volador-worker, run through the host's loader and libraries shown under
// /run/volador/host, so an image needs only /bin/sh; a Python trial runs the
// image's interpreter at the agent's python path. The rank's memory and
// process limits go to the runtime (--memory, --pids-limit): its client is
// not in the rank's cgroup, so a rank the kernel killed at its memory limit
// is told by the kernel log (runtime/sandbox/kernel_oom_log.hpp). The
// container is named after the agent process and the worker, labelled with
// its agent (container_owner), and removed by name when the worker's process
// ends, whatever ended it; what an agent that died left is removed at its
// next start. Image ranks are never kept warm.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "runtime/core/error.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/container_runtime.hpp"
#include "runtime/sandbox/rank_cgroup.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// The container runtime of an agent about to start (`choice`: its
// --container-runtime), logged: what it found, or why it runs no images.
// Error (the agent refuses to start) when the runtime it names does not
// answer, or the worker's libraries cannot be listed.
Result<sandbox::ContainerSetup> prepare_image_ranks(const AgentOptions& options, sandbox::ContainerRuntimeChoice choice);

// What labels this agent's containers: its id and work folder
// ("gpu-1@/var/lib/volador/work"), which no other agent on the host shares,
// while a restart of it does.
std::string container_owner(const AgentOptions& options);

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

// Where the runtime writes worker `worker`'s container id (outside what the container sees).
std::filesystem::path container_id_file(const AgentOptions& options, std::uint64_t worker);

// What remains of an image rank once its worker's process ended: its
// container, its id's file and credentials, and the limits it ran with.
struct ImageRankRemains {
  std::string agent_id, runtime, container;
  std::filesystem::path auth_folder, id_file;
  sandbox::RankLimits limits;
};
ImageRankRemains image_rank_remains(const AgentOptions& options, std::uint64_t worker, const sandbox::RankLimits& limits);

// What ended the image rank whose worker's process ended with `exit`, when
// the agent knows better than the worker: memory_breach() when the kernel
// killed a process of its container at its memory limit (the worker, or the
// trial's command, whose failure the worker then reported); "" otherwise.
// Reads the kernel log (needs CAP_SYSLOG; where it cannot, a failed rank's
// end is logged and keeps its exit). Call before remove_image_rank.
std::string image_rank_end_reason(const ImageRankRemains& remains, const process::ProcessExit& exit);

// Removes the container (it may outlive a killed client) and the
// credentials. Blocks until the runtime answers or a bounded time passes; a
// failure is logged.
void remove_image_rank(const ImageRankRemains& remains);

// Removes the containers that an earlier run of this agent (same
// container_owner) left, as one killed without removing them does; logs how
// many. A failure is logged: the agent starts all the same.
void remove_left_containers(const AgentOptions& options);

}  // namespace volador::actors
