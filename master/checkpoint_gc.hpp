#pragma once
// Applies the checkpoint GC policy (storage/checkpoints/gc_policy.hpp) to an
// experiment, step by step: deletes the files of checkpoints the policy gives
// up and marks their records deleted, keeping each unfinished trial's latest
// checkpoint (its resume point; for one without a checkpoint of its own, the
// checkpoint it warm-starts from) and every checkpoint a model version
// registers (model_registry.hpp). A step weighs what changed, through a
// CheckpointIndex (checkpoint_index.hpp) loaded once and fed since by the
// journal with every checkpoint record of the experiment it is given (new
// ones, a user's deletions, the unusable ones a resume marks deleted: see
// Journal::follow_checkpoints), so it reads nothing back but the registry
// entry of a checkpoint it gives up. No actors: journal and store only.

#include <cstdint>
#include <functional>
#include <memory>

#include "master/checkpoint_index.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// An experiment's checkpoint index and the journal's feed that keeps it current.
struct FedCheckpointIndex {
  CheckpointIndex index;
  std::shared_ptr<storage::CheckpointFeed> feed;  // the experiment's checkpoint records since the load
};

// The index of the experiment's trials and active checkpoints as journaled
// (at its start, or when a restarted master continues it), fed from now on;
// its first step weighs them all. The caller tells it of the experiment's
// new trials (put_trial) and ended ones (end_trial). `on_fed` is called, on
// the journal's writer thread, each time a written record reaches the feed:
// the caller's cue to take a step. Errors: the journal's.
Result<FedCheckpointIndex> load_checkpoint_index(storage::Journal& journal, std::uint64_t experiment_id,
                                                 const config::ExperimentConfig& config,
                                                 std::function<void()> on_fed = {});

// One GC step: takes the checkpoint records written since the last step
// into the index (a record only queued is not there yet, so nothing is given
// up for a checkpoint a crash could still lose), then deletes what the policy
// gives up. Returns how many checkpoints were deleted. Errors: journal or
// store failures (what was deleted before the failure stays marked; the rest
// is weighed again at the next step).
Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               FedCheckpointIndex& checkpoints);

}  // namespace volador::master
