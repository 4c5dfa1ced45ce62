#include "actors/resource_pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "master/master_queries.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = PoolActor::stateful_pointer<ResourcePoolState>;

GrantedAgent granted_agent(const ResourcePoolState& st, const scheduling::Placement& placement) {
  return {st.agents.at(placement.agent_id), placement.agent_id, placement.slot_indices};
}

void grant_what_fits(Self self) {
  auto& st = self->state;
  for (const auto& allocation : st.scheduler.schedule().grants) {
    auto trial = st.waiting_trials.extract(allocation.trial_id);
    if (trial.empty()) continue;
    std::vector<GrantedAgent> grant;
    for (const auto& placement : allocation.placements) grant.push_back(granted_agent(st, placement));
    self->send(trial.mapped(), granted_atom::value, std::move(grant));
  }
}

void kill_on_agent(Self self, const std::string& agent_id, std::uint64_t trial_id, std::uint32_t run_id) {
  if (auto agent = self->state.agents.find(agent_id); agent != self->state.agents.end())
    self->send(agent->second, kill_atom::value, trial_id, run_id);
}

// Gives up a trial's held workers, if it has any: killed, slots freed.
void drop_held(Self self, std::uint64_t trial_id) {
  auto& st = self->state;
  auto held = st.held.extract(trial_id);
  if (held.empty()) return;
  for (const auto& agent_id : held.mapped().agent_ids) kill_on_agent(self, agent_id, trial_id, held.mapped().run_id);
  st.scheduler.release(trial_id);
}

// Answers a trial's pending claim once its verdict is in.
void judge_adoption(Self self, std::uint64_t trial_id) {
  auto& st = self->state;
  auto it = st.adoptions.find(trial_id);
  if (it == st.adoptions.end()) return;
  std::set<std::string> registered;
  for (const auto& [id, agent] : st.agents) registered.insert(id);
  auto held = st.held.find(trial_id);
  const auto claim = it->second.claim;  // outlives the entry, erased below
  auto verdict = scheduling::judge_claim(claim, held == st.held.end() ? nullptr : &held->second,
                                         st.scheduler.allocation(trial_id), registered);
  if (verdict == scheduling::ClaimVerdict::wait) return;
  auto promise = std::move(it->second.promise);
  st.adoptions.erase(it);
  if (verdict == scheduling::ClaimVerdict::refuse) {
    drop_held(self, trial_id);
    promise.deliver(to_caf_error(Error::not_found(fmt::format(
        "the workers of run {} did not all survive the master restart", claim.run_id))));
    return;
  }
  st.held.erase(trial_id);
  // In the run's rank order, which the claim names.
  const auto& placements = st.scheduler.allocation(trial_id)->placements;
  std::vector<GrantedAgent> grant;
  for (const auto& agent_id : claim.agent_ids)
    grant.push_back(granted_agent(st, *std::ranges::find(placements, agent_id, &scheduling::Placement::agent_id)));
  promise.deliver(std::move(grant));
}

// Holds the slots of the workers an agent kept running for their trials;
// workers that cannot be held are killed.
void hold_surviving_workers(Self self, const wire::AgentInfo& info) {
  auto& st = self->state;
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<std::uint32_t>> slots_by_run;
  for (const auto& worker : info.workers) slots_by_run[{worker.trial_id, worker.run_id}].push_back(worker.slot);
  for (auto& [run, slots] : slots_by_run) {
    std::ranges::sort(slots);
    const auto [trial_id, run_id] = run;
    // Another agent's workers of the same run may be held already; a trial
    // with slots of its own, or waiting for them, has moved on to a new run
    // (a host back from a partition brings such stale workers).
    auto held = st.held.find(trial_id);
    const bool claimable = held != st.held.end() ? held->second.run_id == run_id
                                                 : st.scheduler.allocation(trial_id) == nullptr &&
                                                       !st.waiting_trials.contains(trial_id);
    if (!claimable || !st.scheduler.hold(trial_id, info.agent_id, slots)) {
      spdlog::info("agent {} kept {} rank worker(s) of trial {} run {}, which is over: killing them", info.agent_id,
                   slots.size(), trial_id, run_id);
      kill_on_agent(self, info.agent_id, trial_id, run_id);
      continue;
    }
    auto& entry = st.held[trial_id];
    entry.run_id = run_id;
    entry.agent_ids.push_back(info.agent_id);
    self->delayed_send(self, st.reattach_grace, hold_expired_atom::value, trial_id, run_id);
    spdlog::info("agent {} kept {} rank worker(s) of trial {} run {}", info.agent_id, slots.size(), trial_id, run_id);
  }
}

caf::result<bool> register_agent(Self self, const wire::Bytes& bytes, caf::actor agent) {
  auto info = wire::decode<wire::AgentInfo>(bytes);
  if (!info) return to_caf_error(info.error());
  auto& st = self->state;
  if (auto old = st.agents.find(info->agent_id); old != st.agents.end()) {
    if (old->second.address() != agent.address())
      return to_caf_error(Error::already_exists("an agent named '" + info->agent_id + "' is already registered"));
    // The same agent again: a registration it repeated because the answer
    // came late (a loaded master), or one over a new link whose drop the
    // master never saw. Its workers' runs are as the pool has them: holding
    // them again would kill those already claimed.
    return true;
  }
  spdlog::info("agent {} on {} registered with {} slots", info->agent_id, info->hostname, info->slots.size());
  st.agents[info->agent_id] = caf::actor_cast<AgentActor>(agent);
  std::vector<std::string> kinds;
  for (const auto& slot : info->slots) kinds.push_back(wire::slot_kind(slot));
  st.scheduler.add_agent(info->agent_id, std::move(kinds));
  st.registered[info->agent_id] = {info->agent_id, info->hostname, info->slots, {}};
  self->monitor(agent);
  hold_surviving_workers(self, *info);
  std::vector<std::uint64_t> claimed;
  for (const auto& [trial_id, adoption] : st.adoptions) claimed.push_back(trial_id);
  for (auto trial_id : claimed) judge_adoption(self, trial_id);
  grant_what_fits(self);
  return true;
}

caf::typed_response_promise<std::vector<GrantedAgent>> adopt(Self self, std::uint64_t trial_id,
                                                            scheduling::RunClaim claim) {
  auto promise = self->make_response_promise<std::vector<GrantedAgent>>();
  self->state.adoptions[trial_id] = {promise, std::move(claim)};
  judge_adoption(self, trial_id);
  return promise;
}

void on_agent_down(Self self, const caf::down_msg& down) {
  auto& st = self->state;
  auto it = std::ranges::find_if(st.agents, [&](const auto& entry) { return entry.second.address() == down.source; });
  if (it == st.agents.end()) return;
  const auto agent_id = it->first;
  spdlog::warn("agent {} lost; its slots leave the pool", agent_id);
  st.scheduler.remove_agent(agent_id);
  st.agents.erase(it);
  st.registered.erase(agent_id);
  // Held runs on it lost a rank: the rest of them go too.
  std::vector<std::uint64_t> broken;
  for (const auto& [trial_id, held] : st.held)
    if (std::ranges::find(held.agent_ids, agent_id) != held.agent_ids.end()) broken.push_back(trial_id);
  for (auto trial_id : broken) drop_held(self, trial_id);
  grant_what_fits(self);
}

}  // namespace

PoolActor::behavior_type resource_pool_actor(Self self, std::chrono::milliseconds reattach_grace) {
  self->state.reattach_grace = reattach_grace;
  self->set_down_handler([=](const caf::down_msg& down) { on_agent_down(self, down); });
  return {
      [=](register_atom, const wire::Bytes& bytes, caf::actor agent) { return register_agent(self, bytes, std::move(agent)); },
      [=](request_slots_atom, std::uint64_t trial_id, std::uint32_t slots, TrialActor trial) {
        drop_held(self, trial_id);
        if (auto queued = self->state.scheduler.request({.trial_id = trial_id, .slots = slots}); !queued)
          spdlog::error("trial {} cannot be queued: {}", trial_id, queued.error().message);
        self->state.waiting_trials[trial_id] = std::move(trial);
        grant_what_fits(self);
      },
      [=](capacity_atom) -> std::uint32_t { return self->state.scheduler.largest_trial(); },
      [=](agents_atom) { return wire::encode(master::list_agents(self->state.scheduler.usage(), self->state.registered)); },
      [=](release_atom, std::uint64_t trial_id) {
        drop_held(self, trial_id);
        self->state.adoptions.erase(trial_id);
        self->state.scheduler.release(trial_id);
        self->state.waiting_trials.erase(trial_id);
        grant_what_fits(self);
      },
      [=](adopt_atom, std::uint64_t trial_id, std::uint32_t run_id, std::vector<std::string> agent_ids,
          std::uint32_t slots) { return adopt(self, trial_id, {run_id, std::move(agent_ids), slots}); },
      [=](hold_expired_atom, std::uint64_t trial_id, std::uint32_t run_id) {
        auto held = self->state.held.find(trial_id);
        if (held == self->state.held.end() || held->second.run_id != run_id) return;
        spdlog::warn("trial {} did not claim the workers of its run {}; killing them", trial_id, run_id);
        drop_held(self, trial_id);
        grant_what_fits(self);
      },
  };
}

}  // namespace volador::actors
