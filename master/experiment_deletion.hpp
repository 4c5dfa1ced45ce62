#pragma once
// `experiment delete`: an ended experiment's journal records and checkpoint
// folders go, in three steps that a crash may cut anywhere and that running
// again finishes (a restarted master does, finish_pending_deletions):
//   1. mark: the experiment record is journaled with `deleting` set: from
//      then on it is gone from every list and every change is refused;
//   2. its checkpoints' folders are removed from storage, but for those a
//      model version registers, which stay (a folder already gone is fine);
//   3. its records are erased from the journal in one batch
//      (Journal::delete_experiment), registered checkpoints' records kept.
// Nothing of another experiment is touched. No actors: journal and store.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Why experiment `record` may not be deleted now, nullopt when it may: an
// experiment that has not ended (ACTIVE, PAUSED) or whose actor still runs
// (`running`: its trials are stopping) is refused, saying what to do.
std::optional<Error> deletion_refusal(const storage::ExperimentRecord& record, bool running);

// Which checkpoint folders step 2 removes: every checkpoint of the
// experiment but the `registered` ones, whose folders are kept.
struct DeletionPlan {
  std::vector<std::string> remove;
  std::vector<std::string> keep;
};
DeletionPlan plan_deletion(const std::vector<storage::CheckpointRecord>& checkpoints,
                           const std::set<std::string>& registered);

// What a deletion did.
struct DeletionReport {
  std::size_t checkpoints_removed = 0;
  std::size_t checkpoints_kept = 0;  // registered in the model registry
};

// Step 1 for `record` (once: already marked is fine).
Status mark_for_deletion(storage::Journal& journal, storage::ExperimentRecord record);

// Steps 2 and 3 for experiment `id`, marked before; `data_dir`: the
// master's, where the default checkpoint storage lies. not_found for an
// unknown experiment; invalid_argument when it is not marked; store and
// journal errors (run it again to finish).
Result<DeletionReport> finish_deletion(storage::Journal& journal, const std::filesystem::path& data_dir,
                                       std::uint64_t id);

// Finishes every deletion a crash interrupted; each one's error is returned
// in order (the others still run).
std::vector<Error> finish_pending_deletions(storage::Journal& journal, const std::filesystem::path& data_dir);

}  // namespace volador::master
