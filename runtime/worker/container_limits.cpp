#include "runtime/worker/container_limits.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

namespace volador::worker {
namespace {

namespace fs = std::filesystem;

// The limit `text` names: a whole number from 1 to `most`; 0 when null or anything else.
std::uint64_t limit_value(const char* text, std::uint64_t most) {
  if (text == nullptr) return 0;
  std::uint64_t value = 0;
  const auto end = text + std::strlen(text);
  if (auto [at, error] = std::from_chars(text, end, value); error != std::errc() || at != end || value > most) return 0;
  return value;
}

}  // namespace

sandbox::CgroupDirs container_cgroup(const fs::path& cgroup_root) {
  if (fs::is_directory(cgroup_root / "memory") || fs::is_directory(cgroup_root / "pids"))
    return {sandbox::CgroupVersion::v1, cgroup_root / "memory", cgroup_root / "pids"};
  return {sandbox::CgroupVersion::v2, cgroup_root, cgroup_root};
}

std::optional<ContainerLimitsWatch> watch_container_limits(const char* memory_text, const char* processes_text,
                                                           const fs::path& cgroup_root) {
  const sandbox::RankLimits limits{
      .memory_bytes = limit_value(memory_text, std::numeric_limits<std::uint64_t>::max()),
      .max_processes = static_cast<std::uint32_t>(limit_value(processes_text, std::numeric_limits<std::uint32_t>::max()))};
  if (limits == sandbox::RankLimits{}) return std::nullopt;
  auto cgroup = container_cgroup(cgroup_root);
  const auto before = sandbox::read_breach_counters(cgroup);
  return ContainerLimitsWatch{limits, std::move(cgroup), before};
}

std::optional<std::string> container_limit_breach(const ContainerLimitsWatch& watch) {
  return sandbox::breach_between(watch.limits, watch.before, sandbox::read_breach_counters(watch.cgroup));
}

}  // namespace volador::worker
