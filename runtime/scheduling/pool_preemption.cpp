// PoolScheduler's choice of the running trials to ask to leave for a
// blocked gang (the preemption rules of slot_scheduler.hpp). Only the
// experiments that may give slots are visited, each through its trials past
// the minimum run (a prefix of its trials by grant time), so a search that
// finds nothing costs little.

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "runtime/scheduling/fair_share.hpp"
#include "runtime/scheduling/pool_scheduler.hpp"

namespace volador::scheduling {

std::vector<const PoolScheduler::Experiment*> PoolScheduler::victim_experiments(const Experiment& requester,
                                                                                std::uint32_t gang) const {
  std::vector<const Experiment*> out;
  for (const auto& [id, e] : experiments_) {
    if (&e == &requester || e.preemptible.empty() || e.share.priority < requester.share.priority) continue;
    if (e.share.priority == requester.share.priority &&
        !fair_to_take(requester.effective_slots(), requester.share.weight, gang, e.effective_slots(), e.share.weight, 1))
      continue;
    out.push_back(&e);
  }
  auto value = [](const Experiment* e) {
    return std::tuple(-e->share.priority, -e->effective_slots() / e->share.weight, e->share.experiment_id);
  };
  std::ranges::sort(out, [&](const Experiment* a, const Experiment* b) { return value(a) < value(b); });
  return out;
}

std::int64_t PoolScheduler::next_eligible_victim_ms(const Experiment& requester, std::uint32_t gang,
                                                    std::int64_t now_ms) const {
  std::int64_t next = INT64_MAX;
  const std::pair<std::int64_t, TrialId> last_eligible{now_ms - policy_.min_run_before_preemption_ms, UINT64_MAX};
  for (const auto* owner : victim_experiments(requester, gang))
    if (auto young = owner->preemptible.upper_bound(last_eligible); young != owner->preemptible.end())
      next = std::min(next, young->first + policy_.min_run_before_preemption_ms);
  return next;
}

bool PoolScheduler::may_take(const Experiment& requester, std::uint32_t gang, TrialId victim,
                             std::map<ExperimentId, std::uint32_t>& taken) const {
  const auto& trial = trials_.at(victim);
  const auto& owner = experiments_.at(*trial.experiment);
  if (owner.share.priority > requester.share.priority) return true;
  auto& from_owner = taken[owner.share.experiment_id];
  if (!fair_to_take(requester.effective_slots(), requester.share.weight, gang, owner.effective_slots(),
                    owner.share.weight, from_owner + trial.slots))
    return false;
  from_owner += trial.slots;
  return true;
}

// Walks the victims, least important experiment and most recently granted
// trial first, adding each to its agent's slots free or leaving; the first
// agent that would then hold the gang is where it starts.
std::optional<PoolScheduler::Victims> PoolScheduler::victims_on_one_agent(const std::string& kind,
                                                                         const Experiment& requester,
                                                                         std::uint32_t gang, bool needs_images,
                                                                         std::int64_t now_ms) const {
  struct Gathered {
    std::uint32_t soon = 0;  // slots free, leaving, or of the victims gathered here
    std::vector<TrialId> victims;
    std::map<ExperimentId, std::uint32_t> taken;
  };
  std::unordered_map<const AgentIndex::Agent*, Gathered> by_agent;
  const std::pair<std::int64_t, TrialId> last_eligible{now_ms - policy_.min_run_before_preemption_ms, UINT64_MAX};
  for (const auto* owner : victim_experiments(requester, gang)) {
    for (auto it = owner->preemptible.upper_bound(last_eligible); it != owner->preemptible.begin();) {
      const auto victim = (--it)->second;
      const auto& trial = trials_.at(victim);
      for (std::size_t p = 0; p < trial.agents.size(); ++p) {
        const auto* agent = trial.agents[p];
        const auto& placement = trial.allocation.placements[p];
        if (placement.slot_indices.empty() || agent->kinds[placement.slot_indices[0]] != kind) continue;
        if (needs_images && !agent->runs_images) continue;
        const auto* of_kind = agent->slots_of(kind);
        if (of_kind->total < gang) continue;
        auto [gathered, fresh] = by_agent.try_emplace(agent);
        auto& here = gathered->second;
        if (fresh) here.soon = of_kind->soon_free();
        if (!may_take(requester, gang, victim, here.taken)) continue;
        here.victims.push_back(victim);
        here.soon += placement.slots();
        if (here.soon < gang) continue;
        Victims chosen{here.victims, {kind, gang, {placement.agent_id}, true, false}, 0};
        for (auto chosen_trial : chosen.trials) chosen.freed += trials_.at(chosen_trial).slots;
        return chosen;
      }
    }
  }
  return std::nullopt;
}

// Whole agents of the kind whose every busy slot may be freed, those with
// the fewest busy slots first, until they hold the gang. The search stops
// there; an agent with a busy slot that may not be freed is passed over.
std::optional<PoolScheduler::Victims> PoolScheduler::victims_on_whole_agents(const std::string& kind,
                                                                            const Experiment& requester,
                                                                            std::uint32_t gang, bool needs_images,
                                                                            std::int64_t now_ms) const {
  std::unordered_set<ExperimentId> owners;
  for (const auto* owner : victim_experiments(requester, gang)) owners.insert(owner->share.experiment_id);
  auto eligible = [&](TrialId owner) {
    const auto& trial = trials_.at(owner);
    return trial.experiment && owners.contains(*trial.experiment) && !trial.leaving_for &&
           now_ms - trial.granted_ms >= policy_.min_run_before_preemption_ms;
  };
  Victims chosen{{}, {kind, gang, {}, true, true}, 0};
  std::unordered_set<TrialId> seen;
  std::map<ExperimentId, std::uint32_t> taken;
  std::uint32_t held = 0;
  for (const auto& candidate : agents_.whole_agents(kind, needs_images)) {
    if (held >= gang) break;
    const auto& agent = *candidate.agent;
    std::vector<TrialId> victims;
    bool all_taken = true;
    auto tentative = taken;
    for (std::size_t i = 0; i < agent.owners.size() && all_taken; ++i) {
      const auto owner = agent.owners[i];
      if (owner == 0 || agent.leaving[i] || seen.contains(owner) || std::ranges::find(victims, owner) != victims.end())
        continue;
      all_taken = eligible(owner) && may_take(requester, gang, owner, tentative);
      victims.push_back(owner);
    }
    if (!all_taken) continue;
    taken = std::move(tentative);
    for (auto victim : victims) {
      seen.insert(victim);
      chosen.trials.push_back(victim);
      chosen.freed += trials_.at(victim).slots;
    }
    chosen.reservation.agent_ids.push_back(candidate.agent_id);
    held += candidate.size;
  }
  if (held < gang || chosen.trials.empty()) return std::nullopt;
  return chosen;
}

std::optional<PoolScheduler::Victims> PoolScheduler::choose_victims(const Experiment& requester, std::uint32_t gang,
                                                                   bool needs_images, std::int64_t now_ms) const {
  for (const auto& kind : agents_.kinds_by_preference(needs_images)) {
    auto victims = agents_.fits_one_agent(kind, gang, needs_images)
                       ? victims_on_one_agent(kind, requester, gang, needs_images, now_ms)
                       : victims_on_whole_agents(kind, requester, gang, needs_images, now_ms);
    if (victims) return victims;
  }
  return std::nullopt;
}

}  // namespace volador::scheduling
