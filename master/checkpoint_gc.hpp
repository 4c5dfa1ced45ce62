#pragma once
// Applies the checkpoint GC policy (storage/checkpoints/gc_policy.hpp) to an
// experiment: deletes the files of checkpoints the policy gives up and marks
// their records deleted, keeping each unfinished trial's latest checkpoint
// (its resume point; for one without a checkpoint of its own, the checkpoint
// it warm-starts from) and every checkpoint a model version registers
// (model_registry.hpp). No actors: journal and store only.

#include <cstdint>
#include <set>
#include <string>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Returns how many checkpoints were deleted. Errors: journal or store failures
// (what was deleted before the failure stays marked).
Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               std::uint64_t experiment_id, const config::ExperimentConfig& config);

}  // namespace volador::master
