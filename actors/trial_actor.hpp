#pragma once
// One trial on the master: the actor shell of master::TrialRun (its logic and
// life are described there). It turns the messages below into TrialRun events
// and carries out the effects: messages to the pool, agents, rank workers and
// the experiment, timers, and holding the ranks' hellos until answered.
//
// Messages:
//   (train_to_atom, uint64 batches)          experiment: train to this total, then validate
//   (close_atom)                             experiment: stop gracefully when idle
//   (pause_atom) / (activate_atom)           experiment: checkpoint and free the slots / resume
//   (kill_atom)                              experiment or client: stop now, CANCELED
//   (granted_atom, vector<GrantedAgent>)     pool: slots are ours
//   (hello_atom, Bytes RankHello, actor rank) -> Bytes RankGroup
//                                            a rank worker reports in (via the gateway);
//                                            answered once every rank has
//   (rejoin_atom, Bytes RankRejoin, actor rank) -> bool
//                                            a rank of the run a restarted master found
//                                            live reports in again
//   (reattach_timeout_atom, uint32 run)      (to itself) the run did not come back in time
//   (log_atom, Bytes LogLines)               agent: the worker's output
//   (exited_atom, Bytes WorkerExit)          agent: the worker ended
//   (report_atom, Bytes MetricReport)        a command rank: metrics its command printed
// To the experiment: (validated_atom, uint64 request, double metric, uint64 batches),
// (checkpointed_atom, uint64 request) and finally (trial_ended_atom, uint64 request, string state).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/master_context.hpp"
#include "master/trial_run.hpp"

namespace volador::actors {

struct TrialSpec {
  storage::TrialRecord record;  // as journaled (new, or read back after a master restart)
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;  // the packed model definition
  std::shared_ptr<checkpoints::CheckpointStore> store;
};

// A rank worker of the current run, as the actor reaches it.
struct RankChannel {
  caf::actor worker;                           // its session, once admitted
  std::optional<caf::response_promise> reply;  // its hello or rejoin, until answered
};

struct TrialState {
  std::optional<master::TrialRun> run;
  MasterContext context;
  caf::actor experiment;
  std::map<std::string, caf::actor> offered;  // agents of the latest grant or adoption, by id
  std::map<std::string, caf::actor> agents;   // of the current run, watched
  std::vector<RankChannel> ranks;             // of the current run, index = rank
  RankChannel reporting;                      // the rank whose hello or rejoin is being handled
  static inline const char* name = "trial";
};

caf::behavior trial_actor(caf::stateful_actor<TrialState>* self, MasterContext context, TrialSpec spec,
                          caf::actor experiment);

}  // namespace volador::actors
