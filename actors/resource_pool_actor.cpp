#include "actors/resource_pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "master/image_admission.hpp"
#include "master/master_queries.hpp"
#include "master/pool_admission.hpp"
#include "master/pool_list.hpp"
#include "master/rank_limit_admission.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = PoolActor::stateful_pointer<ResourcePoolState>;

GrantedAgent granted_agent(const ResourcePoolState& st, const scheduling::Placement& placement) {
  return {st.agents.at(placement.agent_id), placement.agent_id, placement.slot_indices};
}

// Has the pool decide again at `at_ms` (system_now_ms), unless it will already by then. One millisecond
// late, since both ends are whole milliseconds: a minimum run then lasts its full time, never 0.9 ms less.
void decide_again_at(Self self, std::int64_t at_ms) {
  auto& due = self->state.decide_again_at_ms;
  if (due && *due <= at_ms) return;
  due = at_ms;
  const auto delay = std::chrono::milliseconds(std::max<std::int64_t>(0, at_ms - system_now_ms()) + 1);
  self->delayed_send(self, delay, decide_again_atom::value, at_ms);
}

// Carries out one decision of the policy: grants to waiting trials, and
// running trials asked to checkpoint and make room.
void grant_what_fits(Self self) {
  auto& st = self->state;
  const auto decision = st.scheduler.schedule();
  for (const auto& allocation : decision.grants) {
    auto trial = st.trials.find(allocation.trial_id);
    if (trial == st.trials.end()) continue;
    std::vector<GrantedAgent> grant;
    for (const auto& placement : allocation.placements) grant.push_back(granted_agent(st, placement));
    self->send(trial->second, granted_atom::value, std::move(grant));
  }
  for (const auto& preemption : decision.preemptions) {
    auto trial = st.trials.find(preemption.trial_id);
    if (trial == st.trials.end()) continue;
    spdlog::info("trial {} is asked to make room for experiment {}", preemption.trial_id, preemption.for_experiment);
    self->send(trial->second, preempt_atom::value, preemption.for_experiment);
  }
  if (decision.decide_again_at_ms) decide_again_at(self, *decision.decide_again_at_ms);
}

// Whether an agent of `pool` offers GPUs.
bool pool_has_gpus(const ResourcePoolState& st, const std::string& pool) {
  return std::ranges::any_of(st.scheduler.usage(), [&](const scheduling::AgentUsage& agent) {
    if (agent.pool != pool) return false;
    auto info = st.registered.find(agent.agent_id);
    return info != st.registered.end() && std::ranges::any_of(info->second.slots, [](const wire::SlotSpec& slot) {
             return wire::slot_kind(slot) != scheduling::kCpuKind;
           });
  });
}

// The pool a trial's share names, or the cluster's default for an empty name.
Result<std::string> pool_of(const ResourcePoolState& st, const std::string& requested) {
  return master::choose_pool(st.cluster, requested, pool_has_gpus(st, st.cluster.default_gpu_pool));
}

// `share` with its pool resolved (an unknown one, journaled before the
// cluster config changed, becomes the default: the trial still runs).
scheduling::ExperimentShare resolved(const ResourcePoolState& st, scheduling::ExperimentShare share) {
  auto pool = pool_of(st, share.pool);
  if (!pool) {
    spdlog::warn("experiment {}: {}; its trials go to the default pool", share.experiment_id, pool.error().message);
    pool = pool_of(st, "");
  }
  share.pool = *pool;
  return share;
}

// A new experiment's pool, or why its trials could never run.
caf::result<std::string> admit(Self self, const std::string& requested, std::uint32_t slots, std::uint64_t memory_limit,
                               std::uint32_t max_processes, const std::vector<std::string>& image_fields) {
  auto& st = self->state;
  auto pool = pool_of(st, requested);
  if (!pool) return to_caf_error(Error::invalid_argument("resources.resource_pool: " + pool.error().message));
  const bool needs_images = !image_fields.empty();
  if (auto fits = master::check_fits(*pool, slots, st.scheduler.largest_trial(*pool, needs_images), needs_images); !fits)
    return to_caf_error(fits.error());
  std::vector<wire::AgentInfo> agents;
  for (const auto& [id, info] : st.registered)
    if (info.pool == *pool) agents.push_back(info);
  if (auto allowed = master::check_rank_limits(*pool, agents, memory_limit, max_processes); !allowed)
    return to_caf_error(allowed.error());
  if (auto runnable = master::check_image_runs(*pool, agents, image_fields); !runnable)
    return to_caf_error(runnable.error());
  return *pool;
}

wire::Bytes pool_list(const ResourcePoolState& st) {
  std::map<std::string, std::vector<scheduling::ExperimentUsage>> experiments;
  for (const auto& pool : st.cluster.pools) experiments[pool.name] = st.scheduler.experiments(pool.name);
  return wire::encode(master::list_pools(st.cluster, st.scheduler.pools(), experiments));
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
  const auto adoption_share = it->second.share;
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
  if (auto attributed = st.scheduler.attribute(trial_id, adoption_share); !attributed)
    spdlog::warn("trial {}: {}", trial_id, attributed.error().message);
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
    const bool waits_for_new_slots = st.trials.contains(trial_id) && !st.adoptions.contains(trial_id);
    const bool claimable = held != st.held.end() ? held->second.run_id == run_id
                                                 : st.scheduler.allocation(trial_id) == nullptr && !waits_for_new_slots;
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
  std::vector<std::string> kinds;
  for (const auto& slot : info->slots) kinds.push_back(wire::slot_kind(slot));
  const bool gpus = std::ranges::any_of(kinds, [](const std::string& kind) { return kind != scheduling::kCpuKind; });
  auto pool = info->pool.empty() ? Result<std::string>(st.cluster.default_pool(gpus))
                                 : master::choose_pool(st.cluster, info->pool, gpus);
  if (!pool) {
    spdlog::warn("agent {} refused: --pool: {}", info->agent_id, pool.error().message);
    return to_caf_error(Error::invalid_argument("--pool: " + pool.error().message));
  }
  spdlog::info("agent {} on {} joined pool {} with {} slots", info->agent_id, info->hostname, *pool, info->slots.size());
  st.agents[info->agent_id] = caf::actor_cast<AgentActor>(agent);
  st.scheduler.add_agent({info->agent_id, *pool, info->labels, std::move(kinds), !info->container_runtime.empty()});
  st.registered[info->agent_id] = {info->agent_id, info->hostname, info->slots, {}, *pool, info->labels,
                                   info->memory_limit_bytes, info->max_processes, info->work_disk_free_bytes,
                                   info->work_disk_refusal, info->container_runtime};
  if (!info->work_disk_refusal.empty()) st.scheduler.set_agent_open(info->agent_id, false);
  self->monitor(agent);
  hold_surviving_workers(self, *info);
  std::vector<std::uint64_t> claimed;
  for (const auto& [trial_id, adoption] : st.adoptions) claimed.push_back(trial_id);
  for (auto trial_id : claimed) judge_adoption(self, trial_id);
  grant_what_fits(self);
  return true;
}

// Agent `sender`'s work disk: while it refuses trials it is given none. Heeded only from the agent it names.
void on_work_disk(Self self, const wire::Bytes& bytes, const caf::actor& sender) {
  auto report = wire::decode<wire::WorkDiskReport>(bytes);
  auto& st = self->state;
  if (!report) return;
  auto agent = st.agents.find(report->agent_id);
  if (agent == st.agents.end() || agent->second.address() != sender.address()) return;
  auto& info = st.registered[report->agent_id];
  const bool was_refusing = !info.work_disk_refusal.empty();
  info.work_disk_free_bytes = report->free_bytes;
  info.work_disk_refusal = report->refusal;
  if (was_refusing == !report->refusal.empty()) return;
  if (was_refusing) spdlog::info("agent {} starts trials again: its work disk has room", report->agent_id);
  else spdlog::warn("agent {} is given no new trials: {}", report->agent_id, report->refusal);
  st.scheduler.set_agent_open(report->agent_id, was_refusing);
  grant_what_fits(self);
}

caf::typed_response_promise<std::vector<GrantedAgent>> adopt(Self self, std::uint64_t trial_id,
                                                            scheduling::RunClaim claim,
                                                            scheduling::ExperimentShare share) {
  // Before the promise: making it clears the current sender (CAF 0.17).
  self->state.trials[trial_id] = caf::actor_cast<TrialActor>(self->current_sender());
  auto promise = self->make_response_promise<std::vector<GrantedAgent>>();
  self->state.adoptions[trial_id] = {promise, std::move(claim), resolved(self->state, std::move(share))};
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

PoolActor::behavior_type resource_pool_actor(Self self, std::chrono::milliseconds reattach_grace,
                                             config::ClusterConfig cluster) {
  self->state.reattach_grace = reattach_grace;
  for (const auto& pool : cluster.pools)
    self->state.scheduler.set_pool(pool.name, {.preemption = pool.scheduler.preemption,
                                               .min_run_before_preemption_ms = pool.scheduler.min_run_time.count()});
  self->state.cluster = std::move(cluster);
  self->set_down_handler([=](const caf::down_msg& down) { on_agent_down(self, down); });
  return {
      [=](register_atom, const wire::Bytes& bytes, caf::actor agent) { return register_agent(self, bytes, std::move(agent)); },
      [=](request_slots_atom, std::uint64_t trial_id, std::uint32_t slots, scheduling::ExperimentShare share,
          bool needs_images, TrialActor trial) {
        drop_held(self, trial_id);
        auto queued =
            self->state.scheduler.request({trial_id, slots, resolved(self->state, std::move(share)), needs_images});
        if (!queued) return spdlog::error("trial {}: cannot queue its request: {}", trial_id, queued.error().message);
        self->state.trials[trial_id] = std::move(trial);
        grant_what_fits(self);
      },
      [=](work_disk_atom, const wire::Bytes& bytes, const caf::actor& agent) { on_work_disk(self, bytes, agent); },
      [=](capacity_atom, const std::string& pool, std::uint32_t slots, std::uint64_t memory_limit,
          std::uint32_t max_processes, const std::vector<std::string>& image_fields) {
        return admit(self, pool, slots, memory_limit, max_processes, image_fields);
      },
      [=](agents_atom) { return wire::encode(master::list_agents(self->state.scheduler.usage(), self->state.registered)); },
      [=](pools_atom) { return pool_list(self->state); },
      [=](release_atom, std::uint64_t trial_id) {
        drop_held(self, trial_id);
        self->state.adoptions.erase(trial_id);
        self->state.scheduler.release(trial_id);
        self->state.trials.erase(trial_id);
        grant_what_fits(self);
      },
      [=](adopt_atom, std::uint64_t trial_id, std::uint32_t run_id, std::vector<std::string> agent_ids,
          std::uint32_t slots, scheduling::ExperimentShare share) {
        return adopt(self, trial_id, {run_id, std::move(agent_ids), slots}, std::move(share));
      },
      [=](hold_expired_atom, std::uint64_t trial_id, std::uint32_t run_id) {
        auto held = self->state.held.find(trial_id);
        if (held == self->state.held.end() || held->second.run_id != run_id) return;
        spdlog::warn("trial {} did not claim the workers of its run {}; killing them", trial_id, run_id);
        drop_held(self, trial_id);
        grant_what_fits(self);
      },
      [=](decide_again_atom, std::int64_t at_ms) {
        if (self->state.decide_again_at_ms == at_ms) self->state.decide_again_at_ms.reset();
        grant_what_fits(self);
      },
  };
}

}  // namespace volador::actors
