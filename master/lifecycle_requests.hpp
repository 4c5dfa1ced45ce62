#pragma once
// The lifecycle requests of a user, as the gateway answers them: delete an
// experiment, set its description and labels, delete a checkpoint, read its
// project archive, make a fork's submission. Changes are for the
// experiment's owner or an admin (ownership.hpp); an experiment being
// deleted is not_found for all of them. No actors: journal and store; the
// caller serialises the changes (the gateway does).

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "master/experiment_deletion.hpp"
#include "master/users/user_directory.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Experiment `id` unless it is unknown or being deleted (not_found either way).
Result<storage::ExperimentRecord> live_experiment(const storage::Journal& journal, std::uint64_t id);

// Deletes experiment `id` (experiment_deletion.hpp) for `user`; `running`:
// its actor still runs. Its refusal (also while an unended continuation
// starts from it), permission_denied, store or journal errors.
Result<DeletionReport> delete_experiment_for(storage::Journal& journal, const std::filesystem::path& data_dir,
                                             const User& user, std::uint64_t id, bool running);

// Journals `change` over the experiment's current description and labels
// (its config's until a user set them). invalid_argument for an empty or
// repeated label.
Status set_experiment_metadata(storage::Journal& journal, const User& user, const wire::ExperimentMetadataChange& change,
                               std::int64_t now_ms);

// Deletes checkpoint `uuid` (checkpoint_deletion.hpp) for `user`: its refusal
// (also while an unended continuation starts from it), not_found,
// permission_denied, store or journal errors.
Status delete_checkpoint_for(storage::Journal& journal, const std::filesystem::path& data_dir, const User& user,
                             std::string_view uuid);

// The project archive experiment `id` was submitted with.
Result<wire::ModelDefinition> model_definition(const storage::Journal& journal, std::uint64_t id);

// A fork's submission: experiment `request.experiment_id`'s archive and its
// config with the changes merged (config_merge.hpp), or every error of the
// changes, one line each (FILE:LINE:COL: field: message).
struct ForkSubmission {
  wire::CreateExperimentRequest request;
  std::vector<std::string> errors;
};
Result<ForkSubmission> fork_submission(const storage::Journal& journal, const wire::ForkExperimentRequest& request);

// A continuation's submission (experiment_continuation.hpp): a fork's, that
// continues the experiment; refused when the changes move its checkpoint
// storage (its trials start from checkpoints there) or it cannot be
// continued (not ended, no checkpoint).
Result<ForkSubmission> continue_submission(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                           const wire::ForkExperimentRequest& request);

}  // namespace volador::master
