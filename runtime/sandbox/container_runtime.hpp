#pragma once
// Which container runtime an agent runs environment.image with: the
// operator's choice (volador-node agent --container-runtime), the programs
// it allows, tried in order at the agent's start (host_probes.hpp), and what
// the agent found about the one it uses (ContainerSetup).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/sandbox/host_libraries.hpp"

namespace volador::sandbox {

enum class ContainerRuntimeChoice { none, automatic, podman, docker };

// "none", "auto", "podman" or "docker"; invalid_argument naming the flag and the choices otherwise.
Result<ContainerRuntimeChoice> parse_container_runtime_choice(std::string_view text);

// The programs to try, best first: podman then docker for auto, the one
// named, none for none.
std::vector<std::string> runtime_candidates(ContainerRuntimeChoice choice);

// What an agent runs its image ranks with; an empty runtime: it runs none.
struct ContainerSetup {
  std::string runtime;                       // podman or docker
  std::vector<std::string> runtime_options;  // before `run`: podman_runtime_options
  std::vector<std::string> ulimits;          // --ulimit values: container_ulimits
  HostLibraries host_libraries;              // the worker's loader and library folders
};

// podman's options choosing its OCI runtime: runc on a host whose cgroups
// are hybrid (v1 controllers beside a cgroup2 mount), where crun, podman's
// usual default, refuses ("cgroups in hybrid mode not supported"), when runc
// is there; none otherwise (podman's own choice).
std::vector<std::string> podman_runtime_options(bool hybrid_cgroups, bool runc_available);

// The command whose success within a few seconds says `runtime` answers at
// the agent's start: `version`, which for podman needs no storage lock (its
// client's version) and for docker asks the daemon (the server's).
std::vector<std::string> runtime_probe_command(const std::string& runtime);

// Where podman looks for the init its `run --init` starts (every image rank
// runs with --init) when no containers.conf names another.
inline constexpr std::string_view kPodmanDefaultInit = "/usr/libexec/podman/catatonit";

// Whether podman can start a container with --init: its default init is
// there, or one of `containers_confs` (the texts of the containers.conf files
// podman reads) names another with `init_path`. Error unavailable saying what
// to install otherwise.
Status podman_init_available(bool default_init_present, const std::vector<std::string>& containers_confs);

// Whether `mountinfo` (the text of /proc/self/mountinfo) mounts both cgroup v1 hierarchies and a cgroup2 one.
bool hybrid_cgroups(std::string_view mountinfo);

// A resource limit as getrlimit gives it (soft, hard).
struct Rlimit {
  std::uint64_t soft = 0, hard = 0;
};

// The container's open-file and process limits: the agent's own (what a
// sandboxed rank inherits), processes capped at the kernel's pid_max. The
// runtimes' defaults (1048576) would raise them, which fails without
// CAP_SYS_RESOURCE. As --ulimit values: {"nofile=S:H", "nproc=S:H"}.
std::vector<std::string> container_ulimits(Rlimit nofile, Rlimit nproc, std::uint64_t pid_max);

}  // namespace volador::sandbox
