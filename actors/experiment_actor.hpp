#pragma once
// One experiment on the master: owns its search (master::SearchLog over a
// pure search::Searcher), turns the searcher's operations into trial actors
// and messages to them, feeds trial events back to the searcher, journals
// each event (with the records it caused, in one batch), and records the
// experiment's end.
//
// Its messages: ExperimentActor (actors/interfaces.hpp), from its trial
// actors and, through the gateway, from users.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/interfaces.hpp"
#include "actors/master_context.hpp"
#include "master/checkpoint_gc.hpp"
#include "master/search_log.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/search/searcher.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::actors {

// What the experiment does to its trials in answer to an event, held
// (ExperimentState::orders) until the journal batch that records the event is
// queued: whatever a trial journals in answer is then written after it, so a
// crash never leaves a trial's writes without the search event (or the trial
// record) they follow from.
namespace trial_orders {
// Spawns the trial's actor; `note`, if any, goes to its log first.
struct Start {
  storage::TrialRecord record;
  std::string note;
};
struct TrainTo {
  search::RequestId request = 0;
  std::uint64_t batches = 0;
};
// The messages without arguments.
enum class Signal { close, park, pause, activate, kill };
struct Tell {
  search::RequestId request = 0;
  Signal signal = Signal::close;
};
}  // namespace trial_orders
using TrialOrder = std::variant<trial_orders::Start, trial_orders::TrainTo, trial_orders::Tell>;

struct ExperimentState {
  // A trial's actor; what was asked of it is its progress in `search`.
  struct Trial {
    std::uint64_t id = 0;  // its cluster-wide trial id
    // Null until its Start order is carried out, and again once it ended: a
    // handle kept past the end would keep the ended actor's memory (its
    // state's storage included) for the experiment's whole life.
    TrialActor actor;
    bool errored = false;
  };

  MasterContext context;
  storage::ExperimentRecord record;
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;
  std::shared_ptr<checkpoints::CheckpointStore> store;
  std::optional<master::SearchLog> search;  // set when the actor starts
  std::map<search::RequestId, Trial> trials;
  storage::JournalBatch pending;  // new trial records, committed with the search event
  std::vector<TrialOrder> orders;  // the event's, carried out once `pending` is queued
  std::optional<master::FedCheckpointIndex> checkpoints;  // loaded at the first checkpoint GC
  bool unrecoverable = false;  // the journaled search could not be recovered: ends in ERROR
  // The users' kills, answered once the kill is written (`record.killed` is
  // set, and these are empty, once it is).
  std::vector<caf::typed_response_promise<bool>> kill_answers;
  static inline const char* name = "experiment";
};

// What a restarted master read back: the journaled search state (see
// master/search_log.hpp) and the experiment's trials.
struct ExperimentRecovery {
  storage::SearchLogRecords search_state;
  std::vector<storage::TrialRecord> trials;
};

// Starts the search of an experiment already journaled as ACTIVE, or, with
// a non-null `recovery`, continues it where the journal left it: unfinished trials get
// new trial actors that resume from their latest checkpoints. A kill is
// journaled (`record.killed`) before any trial hears of it; a recovered
// experiment so marked kills its unfinished trials, tells its searcher
// nothing and ends CANCELED.
ExperimentActor::behavior_type experiment_actor(ExperimentActor::stateful_pointer<ExperimentState> self,
                                               MasterContext context, storage::ExperimentRecord record,
                                               std::shared_ptr<const config::ExperimentConfig> config,
                                               std::shared_ptr<const std::string> archive,
                                               std::shared_ptr<checkpoints::CheckpointStore> store,
                                               std::shared_ptr<search::Searcher> searcher,
                                               std::shared_ptr<const ExperimentRecovery> recovery);

}  // namespace volador::actors
