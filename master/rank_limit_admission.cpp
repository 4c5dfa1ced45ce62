#include "master/rank_limit_admission.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace volador::master {
namespace {

// The most any of `agents` allows of what `allowed` reads; 0 when one has no limit.
template <class Allowed>
auto most_allowed(const std::vector<wire::AgentInfo>& agents, Allowed allowed) {
  decltype(allowed(agents.front())) most = 0;
  for (const auto& agent : agents) {
    if (allowed(agent) == 0) return decltype(most){0};
    most = std::max(most, allowed(agent));
  }
  return most;
}

}  // namespace

Status check_rank_limits(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                         std::uint64_t memory_limit, std::uint32_t max_processes) {
  if (agents.empty()) return {};
  const auto memory = most_allowed(agents, [](const wire::AgentInfo& agent) { return agent.memory_limit_bytes; });
  if (memory != 0 && memory_limit > memory)
    return fail(Error::invalid_argument(fmt::format(
        "resources.memory_limit: {} MiB is more than any agent of pool {} allows a rank (at most {} MiB)",
        memory_limit >> 20, pool, memory >> 20)));
  const auto processes = most_allowed(agents, [](const wire::AgentInfo& agent) { return agent.max_processes; });
  if (processes != 0 && max_processes > processes)
    return fail(Error::invalid_argument(fmt::format(
        "resources.max_processes: {} is more than any agent of pool {} allows a rank (at most {})", max_processes,
        pool, processes)));
  return {};
}

}  // namespace volador::master
