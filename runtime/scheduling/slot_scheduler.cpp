#include "runtime/scheduling/slot_scheduler.hpp"

#include <algorithm>

namespace volador::scheduling {

void SlotScheduler::add_agent(const std::string& agent_id, std::uint32_t slots) { agents_[agent_id].slots = slots; }

std::vector<TrialId> SlotScheduler::remove_agent(const std::string& agent_id) {
  std::vector<TrialId> lost;
  for (auto it = allocations_.begin(); it != allocations_.end();) {
    if (it->second.agent_id == agent_id) {
      lost.push_back(it->first);
      it = allocations_.erase(it);
    } else {
      ++it;
    }
  }
  agents_.erase(agent_id);
  return lost;
}

void SlotScheduler::request(TrialId trial_id, std::uint32_t slots) {
  release(trial_id);
  queue_.push_back({trial_id, slots});
}

void SlotScheduler::release(TrialId trial_id) {
  if (auto it = allocations_.find(trial_id); it != allocations_.end()) {
    if (auto agent = agents_.find(it->second.agent_id); agent != agents_.end())
      agent->second.used -= it->second.slots;
    allocations_.erase(it);
  }
  std::erase_if(queue_, [&](const Request& r) { return r.trial_id == trial_id; });
}

std::optional<std::string> SlotScheduler::agent_with_room(std::uint32_t slots) const {
  // Best fit: the agent left with the fewest free slots, keeping big holes for big trials.
  std::optional<std::string> best;
  std::uint32_t best_left = UINT32_MAX;
  for (const auto& [id, agent] : agents_) {
    const auto free = agent.slots - agent.used;
    if (free >= slots && free - slots < best_left) {
      best = id;
      best_left = free - slots;
    }
  }
  return best;
}

std::vector<Allocation> SlotScheduler::schedule() {
  std::vector<Allocation> granted;
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto agent_id = agent_with_room(it->slots);
    if (!agent_id) {
      ++it;
      continue;
    }
    agents_[*agent_id].used += it->slots;
    Allocation allocation{it->trial_id, *agent_id, it->slots};
    allocations_[it->trial_id] = allocation;
    granted.push_back(allocation);
    it = queue_.erase(it);
  }
  return granted;
}

std::uint32_t SlotScheduler::total_slots() const {
  std::uint32_t total = 0;
  for (const auto& [id, agent] : agents_) total += agent.slots;
  return total;
}

std::uint32_t SlotScheduler::free_slots(const std::string& agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? 0 : it->second.slots - it->second.used;
}

}  // namespace volador::scheduling
