#pragma once
// The master's front door, published on the master's port: clients submit
// and query experiments, agents register, rank workers report in. It spawns
// one experiment actor per submitted experiment and routes rank workers to
// their trial actor. Clients log in through it and present their token on
// every other message; it checks the token (context.users) and, for
// changes to an experiment, that the user owns it or is an admin.
//
// Its messages: GatewayActor (actors/interfaces.hpp).

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"
#include "master/ended_trial_bests.hpp"

namespace volador::actors {

struct MasterState {
  MasterContext context;
  std::map<std::uint64_t, TrialActor> trials;            // running trial actors by trial id
  std::map<std::uint64_t, ExperimentActor> experiments;  // running experiment actors by id
  master::EndedTrialBests trial_bests;                    // for the experiment list and descriptions
  static inline const char* name = "master";
};

// `context.gateway` is filled in with the actor itself; `context.users` must be set.
GatewayActor::behavior_type master_actor(GatewayActor::stateful_pointer<MasterState> self, MasterContext context);

}  // namespace volador::actors
