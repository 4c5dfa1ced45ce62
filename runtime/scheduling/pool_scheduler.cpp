#include "runtime/scheduling/pool_scheduler.hpp"

#include <algorithm>
#include <queue>
#include <tuple>

#include "runtime/scheduling/fair_share.hpp"

namespace volador::scheduling {

bool PoolScheduler::Turn::operator>(const Turn& other) const {
  return std::tie(priority, served, experiment_id) > std::tie(other.priority, other.served, other.experiment_id);
}

void PoolScheduler::add_agent(const AgentSpec& agent) {
  agents_.add(agent);
  settled_.reset();
}

std::vector<TrialId> PoolScheduler::remove_agent(const std::string& agent_id) {
  settled_.reset();
  auto lost = agents_.remove(agent_id);
  for (auto trial_id : lost) release(trial_id);  // frees their slots on the other agents too
  return lost;
}

PoolScheduler::Experiment& PoolScheduler::experiment(const ExperimentShare& share) {
  auto& e = experiments_[share.experiment_id];
  e.share = share;
  return e;
}

void PoolScheduler::forget_if_idle(ExperimentId experiment_id) {
  auto it = experiments_.find(experiment_id);
  if (it != experiments_.end() && it->second.queued_trials == 0 && it->second.allocated_slots == 0 &&
      it->second.incoming_slots == 0)
    experiments_.erase(it);
}

void PoolScheduler::request(const SlotRequest& request) {
  settled_.reset();
  trials_[request.trial_id] =
      Trial{.experiment = request.share.experiment_id, .slots = request.slots, .needs_images = request.needs_images};
  auto& e = experiment(request.share);
  e.queued[request.slots].insert(request.trial_id);
  ++e.queued_trials;
  e.queued_slots += request.slots;
  ++pending_trials_;
  pending_slots_ += request.slots;
}

void PoolScheduler::unqueue(Experiment& e, TrialId trial_id, std::uint32_t slots) {
  auto gang = e.queued.find(slots);
  gang->second.erase(trial_id);
  if (gang->second.empty()) e.queued.erase(gang);
  --e.queued_trials;
  e.queued_slots -= slots;
  --pending_trials_;
  pending_slots_ -= slots;
}

// The trial was asked to leave and no longer will (it left, or is gone).
void PoolScheduler::stop_leaving(Trial& trial) {
  if (!trial.leaving_for) return;
  if (auto own = experiments_.find(trial.experiment.value_or(0)); trial.experiment && own != experiments_.end())
    own->second.leaving_slots -= trial.slots;
  if (auto beneficiary = experiments_.find(*trial.leaving_for); beneficiary != experiments_.end()) {
    auto& incoming = beneficiary->second.incoming_slots;
    incoming -= std::min(incoming, trial.slots);
    forget_if_idle(*trial.leaving_for);
  }
  trial.leaving_for.reset();
  --leaving_trials_;
}

bool PoolScheduler::release(TrialId trial_id) {
  auto it = trials_.find(trial_id);
  if (it == trials_.end()) return false;
  settled_.reset();
  auto& trial = it->second;
  auto* e = trial.experiment ? &experiments_.at(*trial.experiment) : nullptr;
  if (trial.queued) {
    unqueue(*e, trial_id, trial.slots);
  } else {
    for (const auto& placement : trial.allocation.placements) agents_.assign(placement, 0);
    stop_leaving(trial);
    if (e) {
      e->allocated_slots -= trial.slots;
      --e->running_trials;
      e->preemptible.erase({trial.granted_ms, trial_id});
    }
    --running_trials_;
  }
  const auto experiment_id = trial.experiment;
  trials_.erase(it);
  if (experiment_id) forget_if_idle(*experiment_id);
  return true;
}

bool PoolScheduler::hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices,
                         std::int64_t now_ms) {
  const auto* agent = agents_.find(agent_id);
  if (agent == nullptr) return false;
  const auto& owners = agent->owners;
  if (!std::ranges::all_of(slot_indices, [&](std::uint32_t i) { return i < owners.size() && owners[i] == 0; }))
    return false;
  settled_.reset();
  auto [it, is_new] = trials_.try_emplace(trial_id, Trial{.queued = false, .allocation = {trial_id, {}}, .granted_ms = now_ms});
  auto& trial = it->second;
  if (trial.queued) return false;
  Placement placement{agent_id, slot_indices};
  const auto added = placement.slots();
  agents_.assign(placement, trial_id);
  trial.agents.push_back(agent);
  trial.allocation.placements.push_back(std::move(placement));
  trial.slots += added;
  if (trial.experiment) experiments_.at(*trial.experiment).allocated_slots += added;
  running_trials_ += is_new;
  return true;
}

Status PoolScheduler::attribute(TrialId trial_id, const ExperimentShare& share) {
  auto it = trials_.find(trial_id);
  if (it == trials_.end() || it->second.queued)
    return fail(Error::not_found("trial " + std::to_string(trial_id) + " holds no slots in pool '" + name_ + "'"));
  settled_.reset();
  auto& trial = it->second;
  if (trial.experiment) {
    if (*trial.experiment == share.experiment_id) {
      experiment(share);
      return {};
    }
    auto& old = experiments_.at(*trial.experiment);
    old.allocated_slots -= trial.slots;
    --old.running_trials;
    old.preemptible.erase({trial.granted_ms, trial_id});
    if (trial.leaving_for) old.leaving_slots -= trial.slots;
    forget_if_idle(*trial.experiment);
  }
  auto& e = experiment(share);
  e.allocated_slots += trial.slots;
  ++e.running_trials;
  if (trial.leaving_for) e.leaving_slots += trial.slots;
  else e.preemptible.insert({trial.granted_ms, trial_id});
  trial.experiment = share.experiment_id;
  return {};
}

const Allocation* PoolScheduler::allocation(TrialId trial_id) const {
  auto it = trials_.find(trial_id);
  return it == trials_.end() || it->second.queued ? nullptr : &it->second.allocation;
}

void PoolScheduler::grant(TrialId trial_id, std::vector<Placement> placements, std::int64_t now_ms,
                          Decision& decision) {
  auto& trial = trials_.at(trial_id);
  auto& e = experiments_.at(*trial.experiment);
  for (const auto& placement : placements) agents_.assign(placement, trial_id);
  trial.queued = false;
  trial.allocation = {trial_id, std::move(placements)};
  for (const auto& placement : trial.allocation.placements) trial.agents.push_back(agents_.find(placement.agent_id));
  trial.granted_ms = now_ms;
  unqueue(e, trial_id, trial.slots);
  e.allocated_slots += trial.slots;
  ++e.running_trials;
  e.preemptible.insert({now_ms, trial_id});
  ++running_trials_;
  decision.grants.push_back(trial.allocation);
}

void PoolScheduler::ask_to_leave(const Victims& victims, ExperimentId for_experiment, Decision& decision) {
  auto& beneficiary = experiments_.at(for_experiment);
  for (auto trial_id : victims.trials) {
    auto& trial = trials_.at(trial_id);
    trial.leaving_for = for_experiment;
    auto& owner = experiments_.at(*trial.experiment);
    owner.leaving_slots += trial.slots;
    owner.preemptible.erase({trial.granted_ms, trial_id});
    beneficiary.incoming_slots += trial.slots;
    ++leaving_trials_;
    for (const auto& placement : trial.allocation.placements) agents_.mark_leaving(placement);
    decision.preemptions.push_back({trial_id, for_experiment});
  }
}

std::optional<PoolScheduler::Turn> PoolScheduler::turn_after(const Experiment& e, TrialId from,
                                                             std::uint32_t below) const {
  std::optional<Turn> turn;
  for (auto gang = e.queued.begin(); gang != e.queued.end() && gang->first < below; ++gang) {
    auto next = gang->second.lower_bound(from);
    if (next == gang->second.end() || (turn && turn->next_trial < *next)) continue;
    turn = Turn{e.share.priority, served_after(e.effective_slots(), gang->first, e.share.weight), e.share.experiment_id,
                *next, gang->first, below};
  }
  return turn;
}

std::int64_t PoolScheduler::next_eligible_ms(std::int64_t now_ms) const {
  std::int64_t next = INT64_MAX;
  if (!policy_.preemption) return next;
  const std::pair<std::int64_t, TrialId> last_eligible{now_ms - policy_.min_run_before_preemption_ms, UINT64_MAX};
  for (const auto& [id, e] : experiments_)
    if (auto young = e.preemptible.upper_bound(last_eligible); young != e.preemptible.end())
      next = std::min(next, young->first + policy_.min_run_before_preemption_ms);
  return next;
}

void PoolScheduler::decide(std::int64_t now_ms, Decision& decision) {
  if (pending_trials_ == 0) return;
  if (!settled_ || now_ms < settled_->since_ms || now_ms >= settled_->until_ms) decide_anew(now_ms, decision);
  if (decide_again_at_ms_ && *decide_again_at_ms_ > now_ms)
    decision.decide_again_at_ms = std::min(decision.decide_again_at_ms.value_or(INT64_MAX), *decide_again_at_ms_);
}

void PoolScheduler::decide_anew(std::int64_t now_ms, Decision& decision) {
  const auto answers_before = decision.grants.size() + decision.preemptions.size();
  std::priority_queue<Turn, std::vector<Turn>, std::greater<>> turns;
  for (const auto& [id, e] : experiments_)
    if (auto turn = turn_after(e, 0, UINT32_MAX)) turns.push(*turn);
  Searches searches;
  while (!turns.empty()) {
    if (agents_.unclaimed_free_slots() == 0 && (!policy_.preemption || searches.hopeless_gang == 1)) break;
    auto turn = turns.top();
    turns.pop();
    auto& e = experiments_.at(turn.experiment_id);
    const bool needs_images = trials_.at(turn.next_trial).needs_images;
    if (auto placements = agents_.place(turn.gang, needs_images)) {
      grant(turn.next_trial, std::move(*placements), now_ms, decision);
    } else if (!make_room(e, turn.gang, needs_images, searches, now_ms, decision)) {
      turn.below = turn.gang;  // blocked: the experiment's smaller trials may still backfill
    }
    if (auto next = turn_after(e, turn.next_trial + 1, turn.below)) turns.push(*next);
  }
  agents_.clear_claims();
  decide_again_at_ms_.reset();
  if (searches.decide_again_at_ms != INT64_MAX) decide_again_at_ms_ = searches.decide_again_at_ms;
  if (decision.grants.size() + decision.preemptions.size() == answers_before)
    settled_ = Settled{now_ms, next_eligible_ms(now_ms)};
  else
    settled_.reset();
}

bool PoolScheduler::make_room(const Experiment& e, std::uint32_t gang, bool needs_images, Searches& searches,
                              std::int64_t now_ms, Decision& decision) {
  auto reservation = agents_.reservation_for(gang, needs_images);
  if (!reservation) return false;  // no agent of the pool could hold it now
  if (reservation->fits_once_left || !policy_.preemption || gang >= searches.hopeless_for(needs_images)) {
    agents_.claim(*reservation);
    return false;
  }
  auto victims = choose_victims(e, gang, needs_images, now_ms);
  if (!victims) {
    (needs_images ? searches.hopeless_image_gang : searches.hopeless_gang) = gang;
    searches.decide_again_at_ms = std::min(searches.decide_again_at_ms, next_eligible_victim_ms(e, gang, now_ms));
    agents_.claim(*reservation);
    return false;
  }
  ask_to_leave(*victims, e.share.experiment_id, decision);
  agents_.claim(victims->reservation);
  return true;
}

PoolUsage PoolScheduler::usage() const {
  return {.pool = name_,
          .agents = static_cast<std::uint32_t>(agents_.agents().size()),
          .slots = agents_.total_slots(),
          .used_slots = agents_.total_slots() - agents_.free_slots(),
          .running_trials = running_trials_,
          .pending_trials = pending_trials_,
          .pending_slots = pending_slots_,
          .preempting_trials = leaving_trials_};
}

std::vector<ExperimentUsage> PoolScheduler::experiments() const {
  std::vector<ExperimentUsage> out;
  std::vector<ShareDemand> demands;
  for (const auto& [id, e] : experiments_) {
    if (e.queued_trials == 0 && e.allocated_slots == 0) continue;
    out.push_back({.share = e.share,
                   .allocated_slots = e.allocated_slots,
                   .running_trials = e.running_trials,
                   .pending_trials = e.queued_trials,
                   .pending_slots = e.queued_slots});
    demands.push_back({e.share.priority, e.share.weight, static_cast<double>(e.allocated_slots + e.queued_slots)});
  }
  const auto ideal = ideal_shares(demands, agents_.total_slots());
  for (std::size_t i = 0; i < out.size(); ++i) out[i].ideal_slots = ideal[i];
  return out;
}

}  // namespace volador::scheduling
