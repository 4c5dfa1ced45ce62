#include "runtime/scheduling/held_run.hpp"

#include <algorithm>

namespace volador::scheduling {

ClaimVerdict judge_claim(const RunClaim& claim, const HeldRun* held, const Allocation* allocation,
                         const std::set<std::string>& registered) {
  const bool all_registered =
      std::ranges::all_of(claim.agent_ids, [&](const std::string& id) { return registered.contains(id); });
  if (!all_registered) return ClaimVerdict::wait;
  if (held == nullptr || allocation == nullptr || held->run_id != claim.run_id) return ClaimVerdict::refuse;
  auto sorted = [](std::vector<std::string> ids) {
    std::ranges::sort(ids);
    return ids;
  };
  const bool same_agents = sorted(held->agent_ids) == sorted(claim.agent_ids);
  return same_agents && allocation->slots() == claim.slots ? ClaimVerdict::grant : ClaimVerdict::refuse;
}

}  // namespace volador::scheduling
