#pragma once
// The resource pool: agents' slots and the queue of trials waiting for them;
// the policy is runtime/scheduling's SlotScheduler.
//
// Its messages: PoolActor (actors/interfaces.hpp). A trial's request is
// answered with (granted_atom, vector<GrantedAgent>) once its slots fit. A
// lost agent (down message) is removed with its allocations; it may register
// again (back from a stall or a partition). A registration repeated by an
// agent still registered changes nothing.
//
// Across a master restart: an agent that kept rank workers running reports
// them when it registers, and their slots are held for their trial. The
// restarted trial claims them with `adopt`, naming its run and its agents in
// rank order; the answer comes once all those agents registered: the grant,
// or an error when the run's workers did not all survive. Held workers that
// are released, not claimed within the reattach grace, or not claimable (their
// trial already asked for new slots) are killed on their agents:
// (kill_atom, uint64 trial, uint32 run) to the agent.

#include <chrono>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/interfaces.hpp"

#include "runtime/scheduling/held_run.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// A restarted trial's claim on its held run, waiting for its agents.
struct Adoption {
  caf::typed_response_promise<std::vector<GrantedAgent>> promise;
  scheduling::RunClaim claim;
};

struct ResourcePoolState {
  scheduling::SlotScheduler scheduler;
  std::map<std::string, AgentActor> agents;
  std::map<std::string, wire::AgentInfo> registered;  // what each agent offered (its workers left out), by id
  std::map<std::uint64_t, TrialActor> waiting_trials;
  std::map<std::uint64_t, scheduling::HeldRun> held;  // by trial, until claimed
  std::map<std::uint64_t, Adoption> adoptions;
  std::chrono::milliseconds reattach_grace{};  // how long held workers wait for their trial's claim
  static inline const char* name = "resource-pool";
};

// `reattach_grace`: master::Timings' (held workers wait that long for their trial).
PoolActor::behavior_type resource_pool_actor(PoolActor::stateful_pointer<ResourcePoolState> self,
                                             std::chrono::milliseconds reattach_grace);

}  // namespace volador::actors
