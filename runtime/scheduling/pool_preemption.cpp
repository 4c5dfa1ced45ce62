// PoolScheduler's choice of the running trials to ask to leave for a
// blocked gang (the preemption rules of slot_scheduler.hpp).

#include <algorithm>
#include <set>
#include <tuple>

#include "runtime/scheduling/fair_share.hpp"
#include "runtime/scheduling/pool_scheduler.hpp"

namespace volador::scheduling {

std::vector<TrialId> PoolScheduler::victims_on(const AgentIndex::Agent& agent, const std::string& kind,
                                               const Experiment& requester, std::int64_t now_ms) const {
  std::vector<TrialId> victims;
  for (std::size_t i = 0; i < agent.owners.size(); ++i) {
    const auto owner = agent.owners[i];
    if (owner == 0 || agent.leaving[i] || agent.kinds[i] != kind || std::ranges::find(victims, owner) != victims.end())
      continue;
    const auto& trial = trials_.at(owner);
    if (!trial.experiment || *trial.experiment == requester.share.experiment_id) continue;
    if (now_ms - trial.granted_ms < policy_.min_run_before_preemption_ms) continue;
    if (experiments_.at(*trial.experiment).share.priority < requester.share.priority) continue;
    victims.push_back(owner);
  }
  // Least important, then most served, then most recently granted (then
  // created) first.
  auto value = [&](TrialId id) {
    const auto& trial = trials_.at(id);
    const auto& e = experiments_.at(*trial.experiment);
    return std::tuple(-e.share.priority, -e.effective_slots() / e.share.weight, -trial.granted_ms, -static_cast<double>(id));
  };
  std::ranges::sort(victims, [&](TrialId a, TrialId b) { return value(a) < value(b); });
  return victims;
}

bool PoolScheduler::may_take(const Experiment& requester, std::uint32_t gang, TrialId victim,
                             std::map<ExperimentId, std::uint32_t>& taken) const {
  const auto& trial = trials_.at(victim);
  const auto& owner = experiments_.at(*trial.experiment);
  auto& from_owner = taken[owner.share.experiment_id];
  if (owner.share.priority == requester.share.priority &&
      !fair_to_take(requester.effective_slots(), requester.share.weight, gang, owner.effective_slots(),
                    owner.share.weight, from_owner + trial.slots))
    return false;
  from_owner += trial.slots;
  return true;
}

// The agent where freeing the fewest slots (then the fewest trials, then
// the least important ones) makes room for the gang.
std::optional<PoolScheduler::Victims> PoolScheduler::victims_on_one_agent(const std::string& kind,
                                                                         const Experiment& requester,
                                                                         std::uint32_t gang, std::int64_t now_ms) const {
  // Its most important victim decides between agents freeing as much.
  auto cost = [&](const Victims& victims) {
    int most_important = kLeastImportantPriority + 1;
    for (auto victim : victims.trials)
      most_important = std::min(most_important, experiments_.at(*trials_.at(victim).experiment).share.priority);
    return std::tuple(victims.freed, victims.trials.size(), -most_important);
  };
  std::optional<Victims> best;
  for (const auto& [id, agent] : agents_.agents()) {
    const auto* of_kind = agent.slots_of(kind);
    if (of_kind == nullptr || of_kind->total < gang) continue;
    const auto need = gang - std::min(gang, of_kind->soon_free());
    if (need == 0) continue;
    Victims here{{}, {kind, gang, {id}, true}, 0};
    std::uint32_t freed_here = 0;
    std::map<ExperimentId, std::uint32_t> taken;
    for (auto victim : victims_on(agent, kind, requester, now_ms)) {
      if (freed_here >= need) break;
      if (!may_take(requester, gang, victim, taken)) continue;
      here.trials.push_back(victim);
      here.freed += trials_.at(victim).slots;
      freed_here += static_cast<std::uint32_t>(std::ranges::count(agent.owners, victim));
    }
    if (freed_here < need) continue;
    if (!best || cost(here) < cost(*best)) best = here;
  }
  return best;
}

// Whole agents of the kind whose every busy slot may be freed, those with
// the fewest busy slots first, until they hold the gang.
std::optional<PoolScheduler::Victims> PoolScheduler::victims_on_whole_agents(const std::string& kind,
                                                                            const Experiment& requester,
                                                                            std::uint32_t gang,
                                                                            std::int64_t now_ms) const {
  struct Candidate {
    std::uint32_t busy;
    std::uint32_t size;
    const std::string* id;
    std::vector<TrialId> victims;
  };
  std::vector<Candidate> candidates;
  for (const auto& [id, agent] : agents_.agents()) {
    if (!agent.only_of(kind) || agent.by_kind.front().claimed > 0) continue;
    const auto& of_kind = agent.by_kind.front();
    auto victims = victims_on(agent, kind, requester, now_ms);
    std::uint32_t freeable = of_kind.free + of_kind.leaving;
    for (auto victim : victims) freeable += static_cast<std::uint32_t>(std::ranges::count(agent.owners, victim));
    if (freeable == of_kind.total)
      candidates.push_back({of_kind.total - of_kind.free - of_kind.leaving, of_kind.total, &id, std::move(victims)});
  }
  std::ranges::sort(candidates, [](const Candidate& a, const Candidate& b) {
    return std::tie(a.busy, b.size, *a.id) < std::tie(b.busy, a.size, *b.id);
  });
  Victims chosen{{}, {kind, gang, {}, true}, 0};
  std::set<TrialId> seen;
  std::map<ExperimentId, std::uint32_t> taken;
  std::uint32_t held = 0;
  for (const auto& candidate : candidates) {
    if (held >= gang) break;
    auto tentative = taken;
    const bool all_taken = std::ranges::all_of(candidate.victims, [&](TrialId victim) {
      return seen.contains(victim) || may_take(requester, gang, victim, tentative);
    });
    if (!all_taken) continue;
    taken = std::move(tentative);
    for (auto victim : candidate.victims)
      if (seen.insert(victim).second) {
        chosen.trials.push_back(victim);
        chosen.freed += trials_.at(victim).slots;
      }
    chosen.reservation.agent_ids.push_back(*candidate.id);
    held += candidate.size;
  }
  if (held < gang || chosen.trials.empty()) return std::nullopt;
  return chosen;
}

std::optional<PoolScheduler::Victims> PoolScheduler::choose_victims(const Experiment& requester, std::uint32_t gang,
                                                                   std::int64_t now_ms) const {
  for (const auto& kind : agents_.kinds_by_preference()) {
    auto victims = agents_.fits_one_agent(kind, gang) ? victims_on_one_agent(kind, requester, gang, now_ms)
                                                      : victims_on_whole_agents(kind, requester, gang, now_ms);
    if (victims) return victims;
  }
  return std::nullopt;
}

}  // namespace volador::scheduling
