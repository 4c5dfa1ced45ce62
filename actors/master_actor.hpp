#pragma once
// The master's front door, published on the master's port: clients submit
// and query experiments, agents register, rank workers report in. It spawns
// one experiment actor per submitted experiment and routes rank workers to
// their trial actor.
//
// Messages:
//   (create_atom, Bytes CreateExperimentRequest) -> Bytes CreateExperimentReply
//   (list_atom)                                  -> Bytes ExperimentList
//   (describe_atom, uint64 experiment)           -> Bytes ExperimentDetail
//   (trial_atom, uint64 trial)                   -> Bytes TrialDetail
//   (logs_atom, uint64 trial, uint64 after_seq)  -> Bytes LogBatch
//   (agents_atom)                                -> Bytes AgentList (from the pool)
//   (register_atom, Bytes AgentInfo, actor agent) -> bool     (to the pool)
//   (hello_atom, Bytes RankHello, actor rank)    -> Bytes RankGroup (to the trial)
//   (rejoin_atom, Bytes RankRejoin, actor rank)  -> bool      (to the trial, after a master restart)
//   (pause_atom | activate_atom | kill_atom, uint64 experiment) -> bool   (to the experiment)
//   (kill_atom, trial_atom, uint64 trial)        -> bool      (to the trial)
//   (checkpoints_atom, uint64 experiment, uint64 trial) -> Bytes CheckpointList  (0 = any)
//   (checkpoints_atom, string uuid)              -> Bytes CheckpointList (that one)
//   (attach_atom, uint64 trial, actor) / (detach_atom, uint64 trial)  from trial actors
//   (listening_atom, string host, uint16 port)   the address rank workers use, once published;
//                                                the first one also recovers unfinished experiments
// Errors come back as caf::error in the "volador" category (actors/caf_error.hpp).

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"

namespace volador::actors {

struct MasterState {
  MasterContext context;
  std::map<std::uint64_t, TrialActor> trials;            // running trial actors by trial id
  std::map<std::uint64_t, ExperimentActor> experiments;  // running experiment actors by id
  static inline const char* name = "master";
};

// `context.gateway` is filled in with the actor itself.
caf::behavior master_actor(caf::stateful_actor<MasterState>* self, MasterContext context);

}  // namespace volador::actors
