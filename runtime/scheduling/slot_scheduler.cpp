#include "runtime/scheduling/slot_scheduler.hpp"

#include <algorithm>
#include <set>

#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

std::uint32_t Allocation::slots() const {
  std::uint32_t total = 0;
  for (const auto& placement : placements) total += placement.slots();
  return total;
}

std::uint32_t SlotScheduler::Agent::free(const std::string& kind) const {
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < kinds.size(); ++i) count += owners[i] == 0 && kinds[i] == kind;
  return count;
}

std::uint32_t SlotScheduler::Agent::used() const {
  return static_cast<std::uint32_t>(std::ranges::count_if(owners, [](TrialId owner) { return owner != 0; }));
}

bool SlotScheduler::Agent::idle_of(const std::string& kind) const {
  return !kinds.empty() && free(kind) == kinds.size();
}

std::vector<std::uint32_t> SlotScheduler::Agent::take(const std::string& kind, std::uint32_t count) const {
  std::vector<std::uint32_t> taken;
  for (std::uint32_t i = 0; i < kinds.size() && taken.size() < count; ++i)
    if (owners[i] == 0 && kinds[i] == kind) taken.push_back(i);
  return taken;
}

void SlotScheduler::add_agent(const std::string& agent_id, std::vector<std::string> slot_kinds) {
  auto& agent = agents_[agent_id];
  agent.owners.resize(slot_kinds.size(), 0);
  agent.kinds = std::move(slot_kinds);
}

void SlotScheduler::add_agent(const std::string& agent_id, std::uint32_t cpu_slots) {
  add_agent(agent_id, std::vector<std::string>(cpu_slots, kCpuKind));
}

std::vector<TrialId> SlotScheduler::remove_agent(const std::string& agent_id) {
  std::vector<TrialId> lost;
  for (const auto& [trial_id, allocation] : allocations_)
    if (std::ranges::any_of(allocation.placements, [&](const Placement& p) { return p.agent_id == agent_id; }))
      lost.push_back(trial_id);
  agents_.erase(agent_id);
  for (auto trial_id : lost) {
    assign(allocations_.at(trial_id), 0);
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
    assign(it->second, 0);
    allocations_.erase(it);
  }
  std::erase_if(queue_, [&](const Request& r) { return r.trial_id == trial_id; });
}

bool SlotScheduler::hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices) {
  auto agent = agents_.find(agent_id);
  if (agent == agents_.end()) return false;
  const auto& owners = agent->second.owners;
  if (!std::ranges::all_of(slot_indices, [&](std::uint32_t i) { return i < owners.size() && owners[i] == 0; })) return false;
  if (std::ranges::any_of(queue_, [&](const Request& r) { return r.trial_id == trial_id; })) return false;
  auto& allocation = allocations_[trial_id];
  allocation.trial_id = trial_id;
  allocation.placements.push_back({agent_id, slot_indices});
  assign({trial_id, {allocation.placements.back()}}, trial_id);
  return true;
}

const Allocation* SlotScheduler::allocation(TrialId trial_id) const {
  auto it = allocations_.find(trial_id);
  return it == allocations_.end() ? nullptr : &it->second;
}

// Marks the allocation's slots as used by `owner` (0: freed).
void SlotScheduler::assign(const Allocation& allocation, TrialId owner) {
  for (const auto& placement : allocation.placements)
    if (auto agent = agents_.find(placement.agent_id); agent != agents_.end())
      for (auto i : placement.slot_indices)
        if (i < agent->second.owners.size()) agent->second.owners[i] = owner;
}

std::vector<std::string> SlotScheduler::kinds_by_preference() const {
  std::set<std::string> kinds;
  for (const auto& [id, agent] : agents_) kinds.insert(agent.kinds.begin(), agent.kinds.end());
  std::vector<std::string> ordered;
  for (const auto& kind : kinds)
    if (kind != kCpuKind) ordered.push_back(kind);
  if (kinds.contains(kCpuKind)) ordered.push_back(kCpuKind);
  return ordered;
}

std::optional<Placement> SlotScheduler::best_single_agent(const std::string& kind, std::uint32_t slots) const {
  // Best fit: the agent left with the fewest free slots, keeping big holes for big trials.
  std::optional<Placement> best;
  std::uint32_t best_left = UINT32_MAX;
  for (const auto& [id, agent] : agents_) {
    const auto free = agent.free(kind);
    if (free >= slots && free - slots < best_left) {
      best = Placement{id, agent.take(kind, slots)};
      best_left = free - slots;
    }
  }
  return best;
}

std::optional<std::vector<Placement>> SlotScheduler::whole_idle_agents(const std::string& kind, std::uint32_t slots) const {
  std::vector<std::pair<std::string, std::uint32_t>> idle;
  for (const auto& [id, agent] : agents_)
    if (agent.idle_of(kind)) idle.emplace_back(id, static_cast<std::uint32_t>(agent.kinds.size()));
  std::ranges::stable_sort(idle, [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<Placement> placements;
  for (const auto& [id, size] : idle) {
    if (slots == 0) break;
    placements.push_back({id, agents_.at(id).take(kind, std::min(size, slots))});
    slots -= placements.back().slots();
  }
  if (slots > 0) return std::nullopt;
  return placements;
}

// The first kind, in `kinds`' order, that can hold `slots` now.
std::optional<std::vector<Placement>> SlotScheduler::place(const std::vector<std::string>& kinds, std::uint32_t slots) const {
  for (const auto& kind : kinds) {
    if (auto single = best_single_agent(kind, slots)) return std::vector{*single};
    if (auto spread = whole_idle_agents(kind, slots)) return spread;
  }
  return std::nullopt;
}

std::vector<Allocation> SlotScheduler::schedule() {
  std::vector<Allocation> granted;
  const auto kinds = kinds_by_preference();
  for (auto it = queue_.begin(); it != queue_.end();) {
    auto placements = place(kinds, it->slots);
    if (!placements) {
      ++it;
      continue;
    }
    Allocation allocation{it->trial_id, std::move(*placements)};
    assign(allocation, it->trial_id);
    allocations_[it->trial_id] = allocation;
    granted.push_back(std::move(allocation));
    it = queue_.erase(it);
  }
  return granted;
}

std::uint32_t SlotScheduler::largest_trial() const {
  std::uint32_t largest = 0;
  for (const auto& kind : kinds_by_preference()) {
    std::uint32_t whole_agents = 0;
    for (const auto& [id, agent] : agents_) {
      const auto of_kind = static_cast<std::uint32_t>(std::ranges::count(agent.kinds, kind));
      largest = std::max(largest, of_kind);
      if (of_kind == agent.kinds.size()) whole_agents += of_kind;
    }
    largest = std::max(largest, whole_agents);
  }
  return largest;
}

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

std::vector<AgentUsage> SlotScheduler::usage() const {
  std::vector<AgentUsage> out;
  for (const auto& [id, agent] : agents_) out.push_back({.agent_id = id, .pool = kDefaultPool, .labels = {}, .slot_owners = agent.owners});
  return out;
}

std::uint32_t SlotScheduler::free_slots(const std::string& agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? 0 : static_cast<std::uint32_t>(it->second.kinds.size()) - it->second.used();
}

}  // namespace volador::scheduling
