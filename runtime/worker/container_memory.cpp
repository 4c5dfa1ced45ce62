#include "runtime/worker/container_memory.hpp"

#include <charconv>
#include <cstring>

#include "runtime/sandbox/rank_cgroup.hpp"

namespace volador::worker {

std::uint64_t container_oom_kills(const std::filesystem::path& cgroup_root) {
  if (auto v1 = sandbox::read_cgroup_counter(cgroup_root / "memory" / "memory.oom_control", "oom_kill")) return *v1;
  return sandbox::read_cgroup_counter(cgroup_root / "memory.events", "oom_kill").value_or(0);
}

std::optional<ContainerMemory> watch_container_memory(const char* limit_text, const std::filesystem::path& cgroup_root) {
  if (limit_text == nullptr) return std::nullopt;
  std::uint64_t limit = 0;
  const auto end = limit_text + std::strlen(limit_text);
  if (auto [at, error] = std::from_chars(limit_text, end, limit); error != std::errc() || at != end || limit == 0)
    return std::nullopt;
  return ContainerMemory{limit, container_oom_kills(cgroup_root)};
}

std::optional<std::string> container_memory_breach(const ContainerMemory& watch, std::uint64_t oom_kills_now) {
  if (oom_kills_now <= watch.oom_kills_before) return std::nullopt;
  return sandbox::memory_breach({.memory_bytes = watch.limit_bytes});
}

}  // namespace volador::worker
