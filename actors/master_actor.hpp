#pragma once
// The master's front door, published on the master's port: clients submit
// and query experiments, agents register, rank workers report in. It spawns
// one experiment actor per submitted experiment and routes rank workers to
// their trial actor. Clients log in through it and present their token on
// every other message; it checks the token (context.users) and, for
// changes to an experiment, that the user owns it or is an admin. It hands
// questions on to query actors of its own (query_actors.hpp), so that
// routing rank workers never waits behind a query.
//
// Its messages: GatewayActor (actors/interfaces.hpp).

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"
#include "master/read_model.hpp"

namespace volador::actors {

struct MasterState {
  MasterContext context;
  std::map<std::uint64_t, TrialActor> trials;            // running trial actors by trial id
  std::map<std::uint64_t, ExperimentActor> experiments;  // running experiment actors by id
  static inline const char* name = "master";
};

// `context.gateway` is filled in with the actor itself; `context.users` must be
// set. `summaries`: the read model that follows context.journal (master::follow_journal).
GatewayActor::behavior_type master_actor(GatewayActor::stateful_pointer<MasterState> self, MasterContext context,
                                         std::shared_ptr<const master::ReadModel> summaries);

}  // namespace volador::actors
