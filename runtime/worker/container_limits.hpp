#pragma once
// A worker in a container (environment.image) tells when its command broke
// the container's memory or process limit: the agent names the limits
// (kContainerMemoryVariable, kContainerProcessVariable) and the worker
// compares the container's own counts of OOM kills and refused forks, which
// the runtime shows it as its /sys/fs/cgroup, from before the command ran to
// after it ended. The agent cannot: its container lives in the runtime's
// cgroup, gone when the container is, and the worker reports its command's end first.

#include <filesystem>
#include <optional>
#include <string>

#include "runtime/sandbox/cgroup_layout.hpp"
#include "runtime/sandbox/rank_cgroup.hpp"

namespace volador::worker {

// The container's limits, set by the agent for a rank in a container that
// has them: memory in bytes, and processes (the runtime's --pids-limit).
inline constexpr const char* kContainerMemoryVariable = "VOLADOR_CONTAINER_MEMORY_LIMIT";
inline constexpr const char* kContainerProcessVariable = "VOLADOR_CONTAINER_PROCESS_LIMIT";

struct ContainerLimitsWatch {
  sandbox::RankLimits limits;
  sandbox::CgroupDirs cgroup;      // the container's own, as it sees it
  sandbox::BreachCounters before;  // the counts when the command started
};

// The container's cgroup as mounted at `cgroup_root`: cgroup v1's memory and
// pids hierarchies in their folders when it has them, else the v2 root.
sandbox::CgroupDirs container_cgroup(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// The watch of a rank in a container with a memory or process limit
// (`memory_text`, `processes_text`: the variables' values, null when unset;
// one that is not a number above 0 names no limit), counting from now; nullopt when neither names one.
std::optional<ContainerLimitsWatch> watch_container_limits(const char* memory_text, const char* processes_text,
                                                           const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// "killed: memory limit N MiB" or "killed: process limit N" (memory first)
// when the container's counts rose since `watch` began; nullopt otherwise.
std::optional<std::string> container_limit_breach(const ContainerLimitsWatch& watch);

}  // namespace volador::worker
