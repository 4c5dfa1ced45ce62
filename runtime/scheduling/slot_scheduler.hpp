#pragma once
// The resource pools' allocation policy, free of actors (Ray's style): the
// caller tells it what changes (agents join and leave, trials ask for slots
// and release them) and asks it for a decision; it keeps the indexes a
// decision needs, so deciding never rescans the whole cluster.
//
// Pools. Every agent belongs to one pool and every request names one; a
// trial only ever gets slots of its own pool, and pools are scheduled
// independently.
//
// Placement (within a pool). Gang allocation: a request gets all its slots
// or nothing, so two trials can never deadlock each other. A trial's slots
// are all of one kind, GPU kinds (by name) preferred to CPU slots, and only
// on agents that run container images when it needs them. A request
// that fits on one agent goes there (best fit: the agent left with the
// fewest free slots of the kind); a larger one takes whole idle agents of
// one kind, biggest first, so a multi-host trial never shares a host with
// another trial and never mixes GPU models.
//
// Order (within a pool). Priority first (1 is served before 99); within a
// priority, the experiment that would be least served after its next gang
// (fair_share.hpp's served_after: slots held plus the gang, over weight)
// goes next, ties to the lower experiment id; within an experiment, its
// oldest queued trial. A trial that cannot be placed claims the slots it
// will start on (the agent with the most slots free or being preempted, or
// for a multi-host trial the whole agents with the fewest busy slots): free
// slots there go to it alone, so trials placed after it (backfill) never
// delay it; its experiment's trials as big wait behind it, smaller ones may
// go on. Work is conserving: slots nobody more entitled can use go to
// anyone.
//
// Preemption (per pool, PoolPolicy). A blocked trial whose claimed slots
// will not fit it even once the trials already asked to leave have left
// may have running trials asked to checkpoint and release their slots:
// those of less important experiments, or of same-priority ones that stay
// at least as served as the requester after the move (fair_share.hpp's
// fair_to_take). Never its own experiment's, never one granted less than
// min_run_before_preemption_ms ago, never one held but not claimed (see
// attribute). Victims are taken least important experiment first, then
// most served, then most recently granted trial, until one agent would
// hold the gang; a multi-host gang frees the whole agents with the fewest
// busy slots whose every trial may leave. When a trial is asked to leave,
// its experiment's next trial may ask too in the same decision. A trial
// asked once is not asked again; it keeps its slots until the caller
// releases it (through the trial's pause path); meanwhile its experiment
// counts them as leaving and the requester's as coming.
//
// Time comes from the injected Clock (runtime/core/clock.hpp): it stamps
// grants for the minimum run before preemption. Not thread-safe: one owner
// (the resource pool actor).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/clock.hpp"
#include "runtime/core/error.hpp"
#include "runtime/scheduling/agent_spec.hpp"
#include "runtime/scheduling/decision.hpp"
#include "runtime/scheduling/placement.hpp"
#include "runtime/scheduling/pool_policy.hpp"
#include "runtime/scheduling/scheduler_usage.hpp"
#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

class PoolScheduler;

class SlotScheduler {
 public:
  // `clock` stamps grants (default: the system's wall clock).
  explicit SlotScheduler(Clock clock = system_now_ms);
  ~SlotScheduler();
  SlotScheduler(SlotScheduler&&) noexcept;
  SlotScheduler& operator=(SlotScheduler&&) noexcept;

  // Sets a pool's policy; a pool not set has PoolPolicy{}. A pool exists
  // once set, or once an agent or a request names it.
  void set_pool(const std::string& pool, const PoolPolicy& policy);

  // Adds an agent; one already known is replaced, its trials losing their
  // slots there (returned, by trial id, as with remove_agent).
  std::vector<TrialId> add_agent(AgentSpec agent);
  // Shorthand: an agent of `cpu_slots` CPU slots, or of these slot kinds, in
  // the default pool without labels.
  std::vector<TrialId> add_agent(const std::string& agent_id, std::uint32_t cpu_slots);
  std::vector<TrialId> add_agent(const std::string& agent_id, std::vector<std::string> slot_kinds);
  // Removes an agent; returns the trials that had slots there, by trial id
  // (their whole allocation is freed, on every agent it spanned).
  std::vector<TrialId> remove_agent(const std::string& agent_id);
  // Closes an agent to new trials (its work disk is full: it refuses
  // launches) or opens it again. A closed agent's running trials keep their
  // slots; it is given no new one, claimed by none and emptied by no
  // preemption until opened. Nothing for an unknown agent.
  void set_agent_open(const std::string& agent_id, bool open);

  // Queues a request, in its share's pool (created if new); a trial has at
  // most one pending request or allocation, so a trial's earlier one is
  // released first. invalid_argument (validate_share), queueing nothing, for
  // a bad share or zero slots.
  Status request(const SlotRequest& request);
  // Frees a trial's allocation or drops its pending request; nothing for an
  // unknown trial.
  void release(TrialId trial_id);

  // Adds slots an agent reports as already used by a trial (its workers
  // outlived a master restart) to that trial's allocation, stamped now.
  // False, changing nothing, when the agent is unknown, any of the slots is
  // not free, the trial waits in the queue (it gave those workers up), or
  // the trial holds slots in another pool. Held slots belong to no
  // experiment (no share, never preempted) until attribute names one.
  bool hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices);
  // Names the experiment of a trial's held allocation (the restarted trial
  // claimed it), which then counts in that experiment's share. not_found
  // without an allocation; invalid_argument for a bad share or one naming
  // another pool than the allocation's.
  Status attribute(TrialId trial_id, const ExperimentShare& share);
  // The trial's allocation, if it has one; valid until the next call that
  // changes the scheduler.
  [[nodiscard]] const Allocation* allocation(TrialId trial_id) const;

  // Decides every pool: grants what the order and placement above allow
  // now and chooses the preemptions. Grants are applied (the trials hold
  // their slots from now on); preempted trials keep theirs until released.
  // When a preemption waits on a running trial's minimum run,
  // decide_again_at_ms says when to call again: nothing else would prompt
  // the caller then.
  Decision schedule();

  // The most slots one trial of `pool` could ever get: of one kind, on one
  // agent or on whole agents of that kind together, that run images when
  // `needs_images` (0 for an unknown pool, or one where no agent does).
  [[nodiscard]] std::uint32_t largest_trial(const std::string& pool = kDefaultPool, bool needs_images = false) const;
  // Every agent, by agent id.
  [[nodiscard]] std::vector<AgentUsage> usage() const;
  // Every pool, by name.
  [[nodiscard]] std::vector<PoolUsage> pools() const;
  // The experiments with trials running or queued in `pool`, by experiment
  // id, with their ideal shares; empty for an unknown pool.
  [[nodiscard]] std::vector<ExperimentUsage> experiments(const std::string& pool) const;
  // Free slots of an agent (0 when unknown).
  [[nodiscard]] std::uint32_t free_slots(const std::string& agent_id) const;
  // Trials queued, in every pool.
  [[nodiscard]] std::size_t pending() const;

 private:
  PoolScheduler& pool(const std::string& name);

  Clock clock_;
  std::map<std::string, std::unique_ptr<PoolScheduler>> pools_;
  std::unordered_map<std::string, PoolScheduler*> agent_pools_;  // agent id -> its pool
  std::unordered_map<TrialId, PoolScheduler*> trial_pools_;      // queued or allocated trial -> its pool
};

}  // namespace volador::scheduling
