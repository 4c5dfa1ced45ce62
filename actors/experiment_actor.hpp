#pragma once
// One experiment on the master: owns its searcher (a pure search::Searcher),
// turns the searcher's operations into trial actors and messages to them,
// feeds trial events back to the searcher, journals the searcher state after
// every event, and records the experiment's end.
//
// Its messages: ExperimentActor (actors/interfaces.hpp), from its trial
// actors and, through the gateway, from users.

#include <map>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/search/searcher.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::actors {

struct ExperimentState {
  struct Trial {
    std::uint64_t trial_id = 0;
    TrialActor actor;
    bool ended = false;
    bool errored = false;
    std::uint64_t target = 0;     // the last ValidateAfter sent
    bool closing = false;         // CloseTrial sent
    std::uint64_t validated = 0;  // batches of the last validation given to the searcher
  };

  MasterContext context;
  storage::ExperimentRecord record;
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;
  std::shared_ptr<checkpoints::CheckpointStore> store;
  std::shared_ptr<search::Searcher> searcher;  // shared only to pass it through spawn()
  std::map<search::RequestId, Trial> trials;
  storage::JournalBatch pending;  // new trial records, committed with the search state
  bool shutdown = false;
  bool search_failed = false;
  bool killed = false;
  static inline const char* name = "experiment";
};

// What a restarted master read back: the journaled search state (see
// search_state_json in experiment_actor.cpp) and the experiment's trials.
struct ExperimentRecovery {
  nlohmann::json search_state;
  std::vector<storage::TrialRecord> trials;
};

// Starts the search of an experiment already journaled as ACTIVE, or, with
// a non-null `recovery`, continues it where the journal left it: unfinished trials get
// new trial actors that resume from their latest checkpoints.
ExperimentActor::behavior_type experiment_actor(ExperimentActor::stateful_pointer<ExperimentState> self,
                                               MasterContext context, storage::ExperimentRecord record,
                                               std::shared_ptr<const config::ExperimentConfig> config,
                                               std::shared_ptr<const std::string> archive,
                                               std::shared_ptr<checkpoints::CheckpointStore> store,
                                               std::shared_ptr<search::Searcher> searcher,
                                               std::shared_ptr<const ExperimentRecovery> recovery);

}  // namespace volador::actors
