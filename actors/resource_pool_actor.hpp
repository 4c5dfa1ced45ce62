#pragma once
// The resource pools: agents' slots, each in the pool of the cluster config
// it joined, and the trials waiting for them; the policy (priority, weighted
// fair share, backfill, preemption) is runtime/scheduling's SlotScheduler.
//
// Its messages: PoolActor (actors/interfaces.hpp). A trial's request, with
// its experiment's share of its pool, is answered with (granted_atom,
// vector<GrantedAgent>) once the policy grants its slots; a running trial
// the policy chooses to make room is sent (preempt_atom, experiment), and
// checkpoints, releases and asks again (its pause path). An agent naming a
// pool the cluster config lacks is refused at registration
// (invalid_argument). An agent whose work disk is short of space (it says so
// at registration and in its WorkDiskReports) is given no new trial until it
// reports room again; its running trials go on. A lost agent (down message) is removed with its
// allocations; it may register again (back from a stall or a partition). A
// registration repeated by an agent still registered changes nothing.
//
// Across a master restart: an agent that kept rank workers running reports
// them when it registers, and their slots are held for their trial. The
// restarted trial claims them with `adopt`, naming its run and its agents in
// rank order; the answer comes once all those agents registered: the grant,
// or an error when the run's workers did not all survive. Held workers that
// are released, not claimed within the reattach grace, or not claimable (their
// trial already asked for new slots) are killed on their agents:
// (kill_atom, uint64 trial, uint32 run) to the agent.
//
// The policy decides when something happens (a registration, a request, a
// release, a lost agent, an expired hold) and when a trial waiting to
// preempt another that has not yet run its minimum time may do so
// (Decision::decide_again_at_ms): the actor sends itself a message for then.

#include <chrono>
#include <optional>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/interfaces.hpp"

#include "runtime/config/cluster_config.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/scheduling/held_run.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// A restarted trial's claim on its held run, waiting for its agents.
struct Adoption {
  caf::typed_response_promise<std::vector<GrantedAgent>> promise;
  scheduling::RunClaim claim;
  scheduling::ExperimentShare share;  // its pool resolved
};

struct ResourcePoolState {
  config::ClusterConfig cluster;
  scheduling::SlotScheduler scheduler{system_now_ms};
  std::map<std::string, AgentActor> agents;
  std::map<std::string, wire::AgentInfo> registered;  // what each agent offered (its workers left out), by id
  std::map<std::uint64_t, TrialActor> trials;          // that asked for slots, waiting or granted, until released
  std::map<std::uint64_t, scheduling::HeldRun> held;  // by trial, until claimed
  std::map<std::uint64_t, Adoption> adoptions;
  std::chrono::milliseconds reattach_grace{};  // how long held workers wait for their trial's claim
  // When a decide_again_atom is due (system_now_ms), the earliest one sent;
  // none: none is.
  std::optional<std::int64_t> decide_again_at_ms;
  static inline const char* name = "resource-pool";
};

// `reattach_grace`: master::Timings' (held workers wait that long for their
// trial); `cluster`: the pools and their schedulers.
PoolActor::behavior_type resource_pool_actor(PoolActor::stateful_pointer<ResourcePoolState> self,
                                             std::chrono::milliseconds reattach_grace, config::ClusterConfig cluster);

}  // namespace volador::actors
