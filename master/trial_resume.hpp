#pragma once
// Where a trial run starts: the latest checkpoint of the trial that still
// verifies against its manifest (corrupt ones are marked deleted and skipped,
// falling back to older ones), else the checkpoint of another trial it
// continues (TrialRecord.warm_start, master/experiment_continuation.hpp),
// else the beginning. No actors: journal and store only.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/training/workload_plan.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

struct ResumePoint {
  std::optional<storage::CheckpointRecord> checkpoint;  // nullopt: start from batch 0
  training::Progress progress;                         // as of the checkpoint
  MetricMap last_validation;                           // the validation at progress.last_validation_at
  std::vector<MetricMap> validations;                  // every validation up to the resume point, in order
  std::vector<std::string> notes;                      // one line per checkpoint skipped, and why
  // Batches at the checkpoint, -1 without one.
  [[nodiscard]] std::int64_t checkpoint_at() const {
    return checkpoint ? static_cast<std::int64_t>(checkpoint->batches) : -1;
  }
};

// Finds the resume point of `trial_id` and journals, in one batch, the
// removal of metric reports after it (a re-run reports them again) and the
// deletion marks of corrupt checkpoints. `warm_start_uuid`: the trial's
// TrialRecord.warm_start (empty: none). Errors: journal failures.
Result<ResumePoint> prepare_resume(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                   std::uint64_t trial_id, std::string_view warm_start_uuid = {});

// Where a trial stands after `batches` by its journal, for a run that goes on
// (reattached after a master restart): the newest active checkpoint at or
// before it, the validations up to it. Changes nothing. Errors: journal failures.
Result<ResumePoint> standing_point(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t batches,
                                   std::string_view warm_start_uuid = {});

// Sets `trial` to start from the newest active checkpoint of trial
// `parent_id` of the same search (warm_start, warm_start_trial): pbt's
// exploit. not_found when the parent has none. Errors: journal failures.
Status warm_start_from(const storage::Journal& journal, std::uint64_t parent_id, storage::TrialRecord& trial);

// The trial's journaled validations of `metric` after batch `seen`, as
// (batches, value) in order: those a trial journaled while the old master's
// searcher had not yet taken them in (its answer died with it). One at
// `held_target` is left out while the trial has no active checkpoint there:
// a trial the master drives reports the validation at its target only once
// the checkpoint there is committed (trial_run.hpp), and will again. Changes
// nothing. Errors: journal failures.
Result<std::vector<std::pair<std::uint64_t, double>>> unseen_validations(const storage::Journal& journal,
                                                                         std::uint64_t trial_id, const std::string& metric,
                                                                         std::uint64_t seen,
                                                                         std::optional<std::uint64_t> held_target = {});

}  // namespace volador::master
