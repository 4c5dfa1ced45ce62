#include "runtime/scheduling/scheduler_usage.hpp"

#include <algorithm>

namespace volador::scheduling {

std::uint32_t AgentUsage::used_slots() const {
  return static_cast<std::uint32_t>(std::ranges::count_if(slot_owners, [](TrialId owner) { return owner != 0; }));
}

std::vector<TrialSlots> AgentUsage::trials() const {
  std::map<TrialId, std::uint32_t> by_trial;
  for (auto owner : slot_owners)
    if (owner != 0) ++by_trial[owner];
  std::vector<TrialSlots> out;
  for (const auto& [trial_id, slots] : by_trial) out.push_back({trial_id, slots});
  return out;
}

}  // namespace volador::scheduling
