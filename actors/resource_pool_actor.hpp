#pragma once
// The resource pool: agents' slots and the queue of trials waiting for them;
// the policy is runtime/scheduling's SlotScheduler.
//
// Messages:
//   (register_atom, Bytes AgentInfo, actor agent) -> bool   an agent offers its slots
//   (request_slots_atom, uint64 trial, uint32 slots, actor trial)
//       later: trial <- (granted_atom, std::vector<GrantedAgent>)
//   (release_atom, uint64 trial)                            slots back to the pool
//   (capacity_atom) -> uint32                               the most slots one trial could get (one kind)
//   (agents_atom) -> Bytes AgentList                        agents, their slots and trials
//   (adopt_atom, uint64 trial, uint32 run, vector<string> agents, uint32 slots)
//       -> vector<GrantedAgent>                             see below
// A lost agent (down message) is removed with its allocations.
//
// Across a master restart: an agent that kept rank workers running reports
// them when it registers, and their slots are held for their trial. The
// restarted trial claims them with `adopt`, naming its run and its agents in
// rank order; the answer comes once all those agents registered: the grant,
// or an error when the run's workers did not all survive. Held workers that
// are released, not claimed within kReattachGrace, or not claimable (their
// trial already asked for new slots) are killed on their agents:
// (kill_atom, uint64 trial, uint32 run) to the agent.

#include <caf/actor.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "runtime/scheduling/held_run.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// Slots of one agent granted to a trial; a grant lists its agents in rank
// order, and each agent's ranks take its slots in the order listed.
struct GrantedAgent {
  caf::actor agent;
  std::string agent_id;
  std::vector<std::uint32_t> slot_indices;
  [[nodiscard]] std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_indices.size()); }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, GrantedAgent& x) {
  return f(caf::meta::type_name("GrantedAgent"), x.agent, x.agent_id, x.slot_indices);
}

// A restarted trial's claim on its held run, waiting for its agents.
struct Adoption {
  caf::response_promise promise;
  scheduling::RunClaim claim;
};

struct ResourcePoolState {
  scheduling::SlotScheduler scheduler;
  std::map<std::string, caf::actor> agents;
  std::map<std::string, wire::AgentInfo> registered;  // what each agent offered (its workers left out), by id
  std::map<std::uint64_t, caf::actor> waiting_trials;
  std::map<std::uint64_t, scheduling::HeldRun> held;  // by trial, until claimed
  std::map<std::uint64_t, Adoption> adoptions;
  static inline const char* name = "resource-pool";
};

caf::behavior resource_pool_actor(caf::stateful_actor<ResourcePoolState>* self);

}  // namespace volador::actors
