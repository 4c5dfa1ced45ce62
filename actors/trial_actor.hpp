#pragma once
// One trial on the master: the actor shell of master::TrialRun (its logic and
// life are described there). It turns the messages below into TrialRun events
// and carries out the effects: messages to the pool, agents, rank workers and
// the experiment, timers, and holding the ranks' hellos until answered.
//
// Its messages: TrialActor (actors/interfaces.hpp). To the experiment:
// validated, checkpointed and finally trial_ended (ExperimentActor).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/typed_response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"
#include "master/trial_run.hpp"

namespace volador::actors {

// A rank worker of the current run, as the actor reaches it.
struct RankChannel {
  caf::actor worker;                           // its session, once admitted
  std::optional<caf::response_promise> reply;  // its hello or rejoin, until answered
};

struct TrialState {
  std::optional<master::TrialRun> run;
  MasterContext context;
  ExperimentActor experiment;
  std::map<std::string, AgentActor> offered;  // agents of the latest grant or adoption, by id
  std::map<std::string, AgentActor> agents;   // of the current run, watched
  std::vector<RankChannel> ranks;             // of the current run, index = rank
  RankChannel reporting;                      // the rank whose hello or rejoin is being handled
  std::optional<caf::typed_response_promise<std::uint64_t>> acknowledging;  // the batch of reports being handled
  // Batches of reports of the current run waiting for their write, by seq
  // (a batch sent again while its first copy waits: both copies).
  std::multimap<std::uint64_t, caf::typed_response_promise<std::uint64_t>> awaiting_journal;
  // Messages of the agents' output waiting for their lines' write, by the trial's number for each.
  std::map<std::uint64_t, caf::typed_response_promise<bool>> awaiting_logs;
  std::uint64_t last_log_message = 0;
  static inline const char* name = "trial";
};

TrialActor::behavior_type trial_actor(TrialActor::stateful_pointer<TrialState> self, MasterContext context,
                                      master::TrialSpec spec, ExperimentActor experiment);

}  // namespace volador::actors
