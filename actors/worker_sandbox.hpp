#pragma once
// How the agent puts a rank worker in its sandbox (runtime/sandbox/): each
// worker process has a home folder of its own in the agent's work folder,
// and its trials' folders go inside it; its sandbox shows that home (at
// /run/volador/work), the system read-only, the experiment's allreduce
// folder, its checkpoint folder, the worker's program and identity, and the
// config's bind_mounts, and nothing else of the host: not the agent's other
// folders (other trials, its certificates), nor the master's. A warm worker
// runs its next trial in a fresh folder of the same home, so in the sandbox
// it started in; it is handed only launches with the same sandbox_key.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"
#include "runtime/core/error.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/sandbox_spec.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// Checks once, at the agent's start, that its ranks can be sandboxed
// (bwrap builds a sandbox here; the work and identity folders do not lie in
// a system folder every sandbox shows) and clears the allreduce folders a
// previous agent of this name left. With options.sandbox off it only warns,
// loudly. Errors say what is wrong and how to fix it or run without.
Status prepare_sandboxes(const AgentOptions& options);

// The home folder of worker process `worker_id`.
std::filesystem::path worker_home(const AgentOptions& options, std::uint64_t worker_id);
// The same, made empty (an earlier agent's worker of that number may have left
// folders there); error io when it cannot be made.
Result<std::filesystem::path> fresh_worker_home(const AgentOptions& options, std::uint64_t worker_id);

// Whether `spec`'s rank runs contained: in a sandbox, or in a container of its image (actors/image_ranks.hpp).
bool contained(const AgentOptions& options, const wire::LaunchSpec& spec);

// Where worker `home`'s process sees its folder `dir`: inside its sandbox or container, or `dir` itself without one.
std::filesystem::path worker_view(const AgentOptions& options, const wire::LaunchSpec& spec,
                                  const std::filesystem::path& home, const std::filesystem::path& dir);

// What the sandbox adds to a contained worker's environment: where its allreduce
// segments go (VOLADOR_SHM_DIR) and a HOME it may write (its /tmp) unless the config sets one.
void add_sandbox_environment(const AgentOptions& options, const wire::LaunchSpec& spec,
                             std::map<std::string, std::string>& env);

// What `spec`'s rank sees whatever contains it (a sandbox, a container):
// `home` shown, `dir` its working folder, the identity folder `env` names,
// the rank's own mounts and the config's bind_mounts, its devices and
// /dev/shm; not the host's system (a sandbox adds it; an image has its own).
// Errors: as sandboxed_command's for the mounts and the checkpoint folder.
Result<sandbox::SandboxSpec> rank_sandbox(const AgentOptions& options, const wire::LaunchSpec& spec,
                                          const std::filesystem::path& home, const std::filesystem::path& dir,
                                          const std::map<std::string, std::string>& env);

// The command that runs `command` as `spec`'s rank worker in its sandbox,
// with `home` shown and `dir` its working folder; `command` itself with the
// sandbox off. `env` is the worker's environment: the identity folder it
// names (VOLADOR_TLS_DIR) is shown read-only, and the agent's own variables of
// Volador's that it does not set are hidden. Errors (the launch fails): a
// bind mount whose host_path is missing, or one that would cover a folder
// the worker needs, named by its place in bind_mounts; the checkpoint
// folder missing on this host; with the sandbox off, a bind mount it cannot
// honour or resources.shm_size, naming the field.
Result<std::vector<std::string>> sandboxed_command(const AgentOptions& options, const wire::LaunchSpec& spec,
                                                   const std::filesystem::path& home, const std::filesystem::path& dir,
                                                   std::vector<std::string> command,
                                                   const std::map<std::string, std::string>& env);

// The worker's exit (`sandboxed`: as its sandbox saw it; bwrap exits 128+N when the worker
// was killed by signal N, which is reported as that signal).
process::ProcessExit worker_exit(bool sandboxed, process::ProcessExit exit);

// What of a launch decides its worker's sandbox: its bind mounts, /dev/shm
// size and checkpoint folder (the experiment and slot are in WorkerReuseKey).
std::string sandbox_key(const wire::LaunchSpec& spec);

}  // namespace volador::actors
