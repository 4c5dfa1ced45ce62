#pragma once
// A rank's sandbox (sandbox_spec.hpp) built by a container runtime from the
// experiment's environment.image, in place of bubblewrap: podman, or docker's
// compatible command line. The image gives the system (its /usr, /etc ...),
// so spec.system_folders and the masks are not used; the mounts, devices,
// /dev/shm size and working folder are the sandbox's. Pure: the agent runs
// what these build.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "runtime/sandbox/sandbox_spec.hpp"

namespace volador::sandbox {

struct RegistryLogin {
  std::string username, password, serveraddress;
};

struct ImageRun {
  std::string runtime = "podman";  // the program: podman or docker
  std::vector<std::string> runtime_options;  // before `run`, e.g. {"--runtime", "runc"} (ContainerSetup)
  std::string image;
  std::string container_name;      // unique on the host: the agent removes it by name after the rank ends
  // --label volador.agent=OWNER: the agent that runs it, which removes at its
  // next start what a crash of it left (owned_containers_command).
  std::string owner;
  // --cidfile: where the runtime writes the container's id as it creates it
  // (the kernel log names a container's cgroup by id: kernel_oom_log.hpp). It must not exist yet.
  std::optional<std::filesystem::path> id_file;
  bool force_pull = false;         // --pull always; else the image is pulled only when missing
  // Where registry_auth_file()'s text lies (podman: that file; docker: a folder holding it as config.json).
  std::optional<std::filesystem::path> auth_file;
  std::uint64_t memory_bytes = 0;   // --memory; 0: no limit
  std::uint32_t max_processes = 0;  // --pids-limit; 0: no limit
  std::vector<std::string> ulimits;  // each --ulimit, e.g. "nofile=20000:20000" (ContainerSetup)
  // Variables of the caller's environment the rank gets; named only, so
  // their values (the rank's token) stay off the command line.
  std::vector<std::string> variables;
};

// The command line that runs `command` in `run.image` with `spec`'s
// mounts, devices, /dev/shm and working folder, and a private /tmp: removed when it ends
// (--rm), the host's network (the rank reaches the master, its agent and
// its peers as a sandboxed one does), its own PID and IPC namespaces, no
// capabilities, and an init process that passes the runtime's signals on
// (SIGTERM from the agent reaches the rank).
std::vector<std::string> image_command(const SandboxSpec& spec, const ImageRun& run,
                                       const std::vector<std::string>& command);

// The command that removes container `name` whatever its state (after its
// client was killed, the container may still run).
std::vector<std::string> container_removal_command(const std::string& runtime, const std::string& name);

// The command that lists the ids of every container, running or not, that
// ImageRun::owner `owner` labelled (one a line).
std::vector<std::string> owned_containers_command(const std::string& runtime, const std::string& owner);

// The registry credentials as podman's auth file and docker's config.json
// read them ({"auths": {server: {"auth": base64(user:password)}}}).
std::string registry_auth_file(const RegistryLogin& login);

// Where ImageRun::auth_file lies in `folder` (a folder of its own: docker is given the folder).
std::filesystem::path auth_file_in(const std::filesystem::path& folder);

}  // namespace volador::sandbox
