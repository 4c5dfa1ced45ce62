#include "runtime/scheduling/slot_scheduler.hpp"

#include <algorithm>

namespace volador::scheduling {

std::uint32_t Allocation::slots() const {
  std::uint32_t total = 0;
  for (const auto& placement : placements) total += placement.slots;
  return total;
}

void SlotScheduler::add_agent(const std::string& agent_id, std::uint32_t slots) { agents_[agent_id].slots = slots; }

std::vector<TrialId> SlotScheduler::remove_agent(const std::string& agent_id) {
  std::vector<TrialId> lost;
  for (const auto& [trial_id, allocation] : allocations_)
    if (std::ranges::any_of(allocation.placements, [&](const Placement& p) { return p.agent_id == agent_id; }))
      lost.push_back(trial_id);
  agents_.erase(agent_id);
  for (auto trial_id : lost) {
    free_allocation(allocations_.at(trial_id));
    allocations_.erase(trial_id);
  }
  return lost;
}

void SlotScheduler::request(TrialId trial_id, std::uint32_t slots) {
  release(trial_id);
  queue_.push_back({trial_id, slots});
}

void SlotScheduler::release(TrialId trial_id) {
  if (auto it = allocations_.find(trial_id); it != allocations_.end()) {
    free_allocation(it->second);
    allocations_.erase(it);
  }
  std::erase_if(queue_, [&](const Request& r) { return r.trial_id == trial_id; });
}

bool SlotScheduler::hold(TrialId trial_id, const std::string& agent_id, std::uint32_t slots) {
  auto agent = agents_.find(agent_id);
  if (agent == agents_.end() || agent->second.free() < slots) return false;
  if (std::ranges::any_of(queue_, [&](const Request& r) { return r.trial_id == trial_id; })) return false;
  auto& allocation = allocations_[trial_id];
  allocation.trial_id = trial_id;
  allocation.placements.push_back({agent_id, slots});
  agent->second.used += slots;
  return true;
}

const Allocation* SlotScheduler::allocation(TrialId trial_id) const {
  auto it = allocations_.find(trial_id);
  return it == allocations_.end() ? nullptr : &it->second;
}

void SlotScheduler::free_allocation(const Allocation& allocation) {
  for (const auto& placement : allocation.placements)
    if (auto agent = agents_.find(placement.agent_id); agent != agents_.end()) agent->second.used -= placement.slots;
}

std::optional<Placement> SlotScheduler::best_single_agent(std::uint32_t slots) const {
  // Best fit: the agent left with the fewest free slots, keeping big holes for big trials.
  std::optional<Placement> best;
  std::uint32_t best_left = UINT32_MAX;
  for (const auto& [id, agent] : agents_) {
    if (agent.free() >= slots && agent.free() - slots < best_left) {
      best = Placement{id, slots};
      best_left = agent.free() - slots;
    }
  }
  return best;
}

std::optional<std::vector<Placement>> SlotScheduler::whole_idle_agents(std::uint32_t slots) const {
  std::vector<std::pair<std::string, std::uint32_t>> idle;
  for (const auto& [id, agent] : agents_)
    if (agent.used == 0 && agent.slots > 0) idle.emplace_back(id, agent.slots);
  std::ranges::stable_sort(idle, [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<Placement> placements;
  for (const auto& [id, free] : idle) {
    if (slots == 0) break;
    placements.push_back({id, std::min(free, slots)});
    slots -= placements.back().slots;
  }
  if (slots > 0) return std::nullopt;
  return placements;
}

std::optional<std::vector<Placement>> SlotScheduler::place(std::uint32_t slots) const {
  if (auto single = best_single_agent(slots)) return std::vector{*single};
  return whole_idle_agents(slots);
}

std::vector<Allocation> SlotScheduler::schedule() {
  std::vector<Allocation> granted;
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto placements = place(it->slots);
    if (!placements) {
      ++it;
      continue;
    }
    for (const auto& placement : *placements) agents_[placement.agent_id].used += placement.slots;
    Allocation allocation{it->trial_id, std::move(*placements)};
    allocations_[it->trial_id] = allocation;
    granted.push_back(std::move(allocation));
    it = queue_.erase(it);
  }
  return granted;
}

std::uint32_t SlotScheduler::total_slots() const {
  std::uint32_t total = 0;
  for (const auto& [id, agent] : agents_) total += agent.slots;
  return total;
}

std::vector<AgentUsage> SlotScheduler::usage() const {
  std::vector<AgentUsage> out;
  std::map<std::string, std::size_t> index;
  for (const auto& [id, agent] : agents_) {
    index[id] = out.size();
    out.push_back({id, agent.slots, agent.used, {}});
  }
  for (const auto& [trial_id, allocation] : allocations_)  // by trial id
    for (const auto& placement : allocation.placements)
      if (auto it = index.find(placement.agent_id); it != index.end()) {
        auto& trials = out[it->second].trials;
        if (!trials.empty() && trials.back().trial_id == trial_id) trials.back().slots += placement.slots;
        else trials.push_back({trial_id, placement.slots});
      }
  return out;
}

std::uint32_t SlotScheduler::free_slots(const std::string& agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? 0 : it->second.free();
}

}  // namespace volador::scheduling
