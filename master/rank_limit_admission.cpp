#include "master/rank_limit_admission.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace volador::master {
namespace {

// Why no agent of `pool` can hold a rank to `asked` of what `allowed` reads
// (`field` names it, `shown` writes a value); nullopt when one can. An agent
// allowing 0 runs its ranks without limits, so holds none to anything.
template <class Allowed, class Shown>
std::optional<std::string> refusal(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                                   std::uint64_t asked, const char* field, Allowed allowed, Shown shown) {
  if (asked == 0 || agents.empty()) return std::nullopt;
  std::uint64_t most = 0;
  for (const auto& agent : agents) most = std::max<std::uint64_t>(most, allowed(agent));
  if (most == 0)
    return fmt::format("{}: no agent of pool {} enforces it: each runs its ranks without limits (--no-trial-limits, "
                       "or no usable cgroups: see its log); remove the field or start an agent that can",
                       field, pool);
  if (asked <= most) return std::nullopt;
  return fmt::format("{}: {} is more than any agent of pool {} allows a rank (at most {})", field, shown(asked), pool,
                     shown(most));
}

std::string mebibytes(std::uint64_t bytes) { return fmt::format("{} MiB", bytes >> 20); }
std::string count(std::uint64_t n) { return std::to_string(n); }

}  // namespace

Status check_rank_limits(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                         std::uint64_t memory_limit, std::uint32_t max_processes) {
  auto memory = refusal(pool, agents, memory_limit, "resources.memory_limit",
                        [](const wire::AgentInfo& agent) { return agent.memory_limit_bytes; }, mebibytes);
  if (memory) return fail(Error::invalid_argument(*memory));
  auto processes = refusal(pool, agents, max_processes, "resources.max_processes",
                           [](const wire::AgentInfo& agent) { return agent.max_processes; }, count);
  if (processes) return fail(Error::invalid_argument(*processes));
  return {};
}

}  // namespace volador::master
