#include "runtime/scheduling/agent_index.hpp"

#include <algorithm>

namespace volador::scheduling {

const AgentIndex::KindSlots* AgentIndex::Agent::slots_of(const std::string& kind) const {
  auto it = std::ranges::find(by_kind, kind, &KindSlots::kind);
  return it == by_kind.end() ? nullptr : &*it;
}

// Counts the agent's slots per kind from its slots.
void AgentIndex::recount(Agent& agent) {
  const auto before = std::move(agent.by_kind);
  agent.by_kind.clear();
  for (std::size_t i = 0; i < agent.kinds.size(); ++i) {
    auto it = std::ranges::find(agent.by_kind, agent.kinds[i], &KindSlots::kind);
    if (it == agent.by_kind.end()) it = agent.by_kind.insert(agent.by_kind.end(), KindSlots{agent.kinds[i]});
    ++it->total;
    it->free += agent.owners[i] == 0;
    it->leaving += agent.leaving[i];
  }
  std::ranges::sort(agent.by_kind, {}, &KindSlots::kind);
  for (const auto& old : before)
    if (auto it = std::ranges::find(agent.by_kind, old.kind, &KindSlots::kind); it != agent.by_kind.end())
      it->claimed = old.claimed;
}

template <class Change>
void AgentIndex::for_views_of(const Agent& agent, Change&& change) {
  for (auto* view : {&every_, &imaging_})
    if (view->admits(agent)) change(*view);
}

// Takes an unclaimed, open agent's entries out of the per-kind indexes.
void AgentIndex::unindex(const std::string& id, const Agent& agent) {
  if (agent.closed) return;
  for_views_of(agent, [&](View& view) {
    for (const auto& slots : agent.by_kind) {
      auto& index = view.kinds[slots.kind];
      index.by_free.erase({slots.free, id});
      if (index.idle.erase({slots.total, id}) > 0) index.idle_slots -= slots.total;
      index.with_leaving.erase(id);
      if (agent.only_of(slots.kind)) index.by_busy.erase({slots.total - slots.free - slots.leaving, slots.total, id});
    }
  });
  for (const auto& slots : agent.by_kind) unclaimed_free_ -= slots.free;
}

void AgentIndex::index(const std::string& id, const Agent& agent) {
  if (agent.closed) return;
  for_views_of(agent, [&](View& view) {
    for (const auto& slots : agent.by_kind) {
      auto& index = view.kinds[slots.kind];
      index.by_free.insert({slots.free, id});
      if (agent.only_of(slots.kind) && slots.free == slots.total) {
        index.idle.insert({slots.total, id});
        index.idle_slots += slots.total;
      }
      if (slots.leaving > 0) index.with_leaving.insert(id);
      if (agent.only_of(slots.kind))
        index.by_busy.insert({slots.total - slots.free - slots.leaving, slots.total, id, &agent});
    }
  });
  for (const auto& slots : agent.by_kind) unclaimed_free_ += slots.free;
}

void AgentIndex::order_kinds(View& view) {
  view.kind_order.clear();
  for (const auto& [kind, index] : view.kinds)
    if (kind != kCpuKind && index.agents > 0) view.kind_order.push_back(kind);
  if (auto cpu = view.kinds.find(kCpuKind); cpu != view.kinds.end() && cpu->second.agents > 0)
    view.kind_order.push_back(kCpuKind);
}

void AgentIndex::add(const AgentSpec& spec) {
  auto& agent = agents_[spec.agent_id];
  agent.labels = spec.labels;
  agent.kinds = spec.slot_kinds;
  agent.owners.assign(spec.slot_kinds.size(), 0);
  agent.leaving.assign(spec.slot_kinds.size(), false);
  agent.runs_images = spec.runs_images;
  recount(agent);
  for_views_of(agent, [&](View& view) {
    for (const auto& slots : agent.by_kind) {
      auto& index = view.kinds[slots.kind];
      ++index.agents;
      index.largest_agent = std::max(index.largest_agent, slots.total);
      if (agent.only_of(slots.kind)) index.only_kind.insert(spec.agent_id);
    }
    order_kinds(view);
  });
  total_slots_ += static_cast<std::uint32_t>(agent.kinds.size());
  free_slots_ += static_cast<std::uint32_t>(agent.kinds.size());
  index(spec.agent_id, agent);
}

std::vector<TrialId> AgentIndex::remove(const std::string& agent_id) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end()) return {};
  const auto& agent = it->second;
  if (!agent.hidden) unindex(agent_id, agent);
  std::set<TrialId> trials;
  for (auto owner : agent.owners)
    if (owner != 0) trials.insert(owner);
  total_slots_ -= static_cast<std::uint32_t>(agent.kinds.size());
  free_slots_ -= static_cast<std::uint32_t>(std::ranges::count(agent.owners, TrialId{0}));
  const auto gone = std::move(it->second);
  agents_.erase(it);
  std::erase(claimed_, agent_id);
  for_views_of(gone, [&](View& view) {
    for (const auto& slots : gone.by_kind) {
      auto& index = view.kinds[slots.kind];
      --index.agents;
      index.only_kind.erase(agent_id);
      index.largest_agent = 0;
      for (const auto& [id, other] : agents_)
        if (const auto* of_kind = other.slots_of(slots.kind); of_kind != nullptr && view.admits(other))
          index.largest_agent = std::max(index.largest_agent, of_kind->total);
    }
    order_kinds(view);
  });
  return {trials.begin(), trials.end()};
}

const AgentIndex::Agent* AgentIndex::find(const std::string& agent_id) const {
  auto it = agents_.find(agent_id);
  return it == agents_.end() ? nullptr : &it->second;
}

void AgentIndex::set_open(const std::string& agent_id, bool open) {
  auto it = agents_.find(agent_id);
  if (it == agents_.end() || it->second.closed != open) return;
  auto& agent = it->second;
  if (!agent.hidden) unindex(agent_id, agent);
  agent.closed = !open;
  if (!agent.hidden) index(agent_id, agent);
}

void AgentIndex::assign(const Placement& placement, TrialId owner) {
  auto it = agents_.find(placement.agent_id);
  if (it == agents_.end()) return;
  auto& agent = it->second;
  if (!agent.hidden) unindex(placement.agent_id, agent);
  for (auto i : placement.slot_indices) {
    if (i >= agent.owners.size()) continue;
    free_slots_ += (owner == 0) - (agent.owners[i] == 0);
    agent.owners[i] = owner;
    if (owner == 0) agent.leaving[i] = false;
  }
  recount(agent);
  if (!agent.hidden) index(placement.agent_id, agent);
}

void AgentIndex::mark_leaving(const Placement& placement) {
  auto it = agents_.find(placement.agent_id);
  if (it == agents_.end()) return;
  auto& agent = it->second;
  if (!agent.hidden) unindex(placement.agent_id, agent);
  for (auto i : placement.slot_indices)
    if (i < agent.owners.size() && agent.owners[i] != 0) agent.leaving[i] = true;
  recount(agent);
  if (!agent.hidden) index(placement.agent_id, agent);
}

std::vector<std::uint32_t> AgentIndex::take(const Agent& agent, const std::string& kind, std::uint32_t count) {
  std::vector<std::uint32_t> taken;
  for (std::uint32_t i = 0; i < agent.kinds.size() && taken.size() < count; ++i)
    if (agent.owners[i] == 0 && agent.kinds[i] == kind) taken.push_back(i);
  return taken;
}

std::optional<Placement> AgentIndex::best_fit(const KindIndex& index, const std::string& kind,
                                             std::uint32_t slots) const {
  const auto& by_free = index.by_free;
  auto it = by_free.lower_bound({slots, std::string()});
  if (it == by_free.end()) return std::nullopt;
  return Placement{it->second, take(agents_.at(it->second), kind, slots)};
}

std::optional<std::vector<Placement>> AgentIndex::whole_idle_agents(const KindIndex& index, const std::string& kind,
                                                                    std::uint32_t slots) const {
  if (index.idle_slots < slots) return std::nullopt;
  std::vector<Placement> placements;
  for (auto it = index.idle.begin(); slots > 0; ++it) {
    placements.push_back({it->second, take(agents_.at(it->second), kind, std::min(it->first, slots))});
    slots -= placements.back().slots();
  }
  return placements;
}

std::optional<std::vector<Placement>> AgentIndex::place(std::uint32_t slots, bool needs_images) const {
  if (slots == 0 || slots > unclaimed_free_) return std::nullopt;
  const auto& candidates = view(needs_images);
  for (const auto& kind : candidates.kind_order) {
    const auto& index = candidates.kinds.at(kind);
    if (auto single = best_fit(index, kind, slots)) return std::vector{*single};
    if (auto spread = whole_idle_agents(index, kind, slots)) return spread;
  }
  return std::nullopt;
}

bool AgentIndex::fits_one_agent(const std::string& kind, std::uint32_t slots, bool needs_images) const {
  const auto& kinds = view(needs_images).kinds;
  auto it = kinds.find(kind);
  return it != kinds.end() && it->second.largest_agent >= slots;
}

std::optional<AgentIndex::Reservation> AgentIndex::nearest_agent(const View& view, const std::string& kind,
                                                                 std::uint32_t slots) const {
  const auto& index = view.kinds.at(kind);
  // The most free slots among unclaimed agents big enough, then any agent
  // whose leaving slots, or claimed agent whose unclaimed ones, bring it
  // nearer.
  const KindSlots* best = nullptr;
  const std::string* best_id = nullptr;
  auto consider = [&](const std::string& id) {
    const auto& agent = agents_.at(id);
    const auto* of_kind = agent.slots_of(kind);
    if (of_kind == nullptr || of_kind->total < slots || !view.admits(agent)) return;
    const auto soon = of_kind->soon_free();
    if (best == nullptr || soon > best->soon_free() || (soon == best->soon_free() && id < *best_id)) {
      best = of_kind;
      best_id = &id;
    }
  };
  for (auto it = index.by_free.rbegin(); it != index.by_free.rend() && best == nullptr; ++it) consider(it->second);
  for (const auto& id : index.with_leaving) consider(id);
  for (const auto& id : claimed_) consider(id);
  if (best == nullptr) return std::nullopt;
  return Reservation{kind, slots, {*best_id}, best->soon_free() >= slots};
}

std::optional<AgentIndex::Reservation> AgentIndex::nearest_whole_agents(const KindIndex& index, const std::string& kind,
                                                                        std::uint32_t slots) {
  Reservation reservation{kind, slots, {}, true, true};
  for (auto it = index.by_busy.begin(); slots > 0 && it != index.by_busy.end(); ++it) {
    reservation.agent_ids.push_back(it->agent_id);
    reservation.fits_once_left = reservation.fits_once_left && it->busy == 0;
    slots -= std::min(slots, it->size);
  }
  if (slots > 0) return std::nullopt;
  return reservation;
}

const std::set<AgentIndex::BusyAgent>& AgentIndex::whole_agents(const std::string& kind, bool needs_images) const {
  static const std::set<BusyAgent> none;
  const auto& kinds = view(needs_images).kinds;
  auto it = kinds.find(kind);
  return it == kinds.end() ? none : it->second.by_busy;
}

std::optional<AgentIndex::Reservation> AgentIndex::reservation_for(std::uint32_t slots, bool needs_images) const {
  const auto& candidates = view(needs_images);
  for (const auto& kind : candidates.kind_order) {
    auto reservation = fits_one_agent(kind, slots, needs_images)
                           ? nearest_agent(candidates, kind, slots)
                           : nearest_whole_agents(candidates.kinds.at(kind), kind, slots);
    if (reservation) return reservation;
  }
  return std::nullopt;
}

void AgentIndex::claim(const Reservation& reservation) {
  for (const auto& id : reservation.agent_ids) {
    auto it = agents_.find(id);
    if (it == agents_.end()) continue;
    auto& agent = it->second;
    if (!agent.hidden) {
      unindex(id, agent);
      agent.hidden = true;
      claimed_.push_back(id);
    }
    for (auto& of_kind : agent.by_kind)
      if (of_kind.kind == reservation.kind)
        of_kind.claimed = reservation.whole_agents ? of_kind.total : std::min(of_kind.total, of_kind.claimed + reservation.slots);
  }
}

void AgentIndex::clear_claims() {
  for (const auto& id : claimed_) {
    auto it = agents_.find(id);
    if (it == agents_.end()) continue;
    it->second.hidden = false;
    for (auto& of_kind : it->second.by_kind) of_kind.claimed = 0;
    index(id, it->second);
  }
  claimed_.clear();
}

std::uint32_t AgentIndex::largest_trial(bool needs_images) const {
  std::uint32_t largest = 0;
  for (const auto& [kind, index] : view(needs_images).kinds) {
    std::uint32_t whole_agents = 0;
    for (const auto& id : index.only_kind) whole_agents += agents_.at(id).by_kind.front().total;
    largest = std::max({largest, index.largest_agent, whole_agents});
  }
  return largest;
}

}  // namespace volador::scheduling
