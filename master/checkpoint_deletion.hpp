#pragma once
// `checkpoint delete UUID`: a checkpoint's folder is removed from storage,
// then its record is marked deleted (a crash between the two leaves a record
// whose folder is gone, as after the GC: deleting again finishes it). Refused
// for a checkpoint that a model version registers and for the newest live
// checkpoint of a trial that has not ended (where it would resume). No
// actors: journal and store.

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Why `checkpoint` may not be deleted, nullopt when it may: registered by one
// of `versions` (naming the model and version), or the resume point of
// `trial` (unended; `of_trial`: its checkpoints).
std::optional<Error> checkpoint_deletion_refusal(const storage::CheckpointRecord& checkpoint,
                                                 const storage::TrialRecord& trial,
                                                 const std::vector<storage::CheckpointRecord>& of_trial,
                                                 const std::vector<storage::ModelVersionRecord>& versions);

// Deletes `checkpoint` (the caller checked the refusal and the user's
// right); one already marked deleted is left as it is. Store and journal errors.
Status delete_checkpoint(storage::Journal& journal, const std::filesystem::path& data_dir,
                         storage::CheckpointRecord checkpoint);

}  // namespace volador::master
