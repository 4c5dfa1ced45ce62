#pragma once
// Applies the checkpoint GC policy (storage/checkpoints/gc_policy.hpp) to an
// experiment, step by step: deletes the files of checkpoints the policy gives
// up and marks their records deleted, keeping each unfinished trial's latest
// checkpoint (its resume point; for one without a checkpoint of its own, the
// checkpoint it warm-starts from) and every checkpoint a model version
// registers (model_registry.hpp). A step reads what changed, through a
// CheckpointIndex (checkpoint_index.hpp) loaded once. No actors: journal and store only.

#include <cstdint>

#include "master/checkpoint_index.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The index of the experiment's trials and active checkpoints as journaled
// (at its start, or when a restarted master continues it); its first step
// weighs them all. Errors: the journal's.
Result<CheckpointIndex> load_checkpoint_index(const storage::Journal& journal, std::uint64_t experiment_id,
                                              const config::ExperimentConfig& config);

// Reads trial `trial_id`'s record and checkpoints back into `index` (after it
// checkpointed or ended). Errors: the journal's.
Status refresh_trial(const storage::Journal& journal, CheckpointIndex& index, std::uint64_t trial_id);

// One GC step after trial `trial_id` checkpointed: refreshes that trial, the
// experiment's best and the trials the step weighs, then deletes what the
// policy gives up. Returns how many checkpoints were deleted. Errors: journal
// or store failures (what was deleted before the failure stays marked; the
// rest is weighed again at the next step).
Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               CheckpointIndex& index, std::uint64_t trial_id);

}  // namespace volador::master
