#pragma once
// A worker in a container (environment.image) tells when the kernel killed
// its command at the container's memory limit: the agent names the limit
// (kContainerMemoryVariable) and the worker compares the container's own
// count of OOM kills, which the runtime shows it as its /sys/fs/cgroup, from
// before the command ran to after it ended. The agent cannot: its container
// lives in the runtime's cgroup, gone when the container is, and the worker
// reports its command's end first.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace volador::worker {

// The container's memory limit in bytes, set by the agent for a rank in a container that has one.
inline constexpr const char* kContainerMemoryVariable = "VOLADOR_CONTAINER_MEMORY_LIMIT";

struct ContainerMemory {
  std::uint64_t limit_bytes = 0;
  std::uint64_t oom_kills_before = 0;  // the count when the command started
};

// The OOM kills the cgroup mounted at `cgroup_root` counted: cgroup v1's
// memory/memory.oom_control, else v2's memory.events ("oom_kill"); 0 when neither is readable.
std::uint64_t container_oom_kills(const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// The watch of a rank in a container with a memory limit (`limit_text`: the
// variable's value, null when unset), counting from now; nullopt otherwise.
std::optional<ContainerMemory> watch_container_memory(const char* limit_text,
                                                      const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// "killed: memory limit N MiB" when the kernel OOM-killed a process of the
// container since `watch` began (`oom_kills_now`: container_oom_kills now); nullopt otherwise.
std::optional<std::string> container_memory_breach(const ContainerMemory& watch, std::uint64_t oom_kills_now);

}  // namespace volador::worker
