#pragma once
// The model registry over the master's journal: named models, each with
// numbered versions, a version being a checkpoint with where it came from
// (experiment, trial, batches, hyperparameters, validation metrics). A
// registered checkpoint is never garbage-collected nor deleted
// (checkpoint_gc.hpp, checkpoint_deletion.hpp, experiment_deletion.hpp).
// No actors: callers serialise the changes (the gateway does); reads may run
// anywhere.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "master/users/user_directory.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// invalid_argument saying what is wrong unless `name` is 1 to 64 of A-Z a-z 0-9 _ . -
Status check_model_name(std::string_view name);

// Journals model `name` owned by `owner`. invalid_argument for a bad name,
// already_exists when the name is taken; journal errors.
Result<wire::ModelSummary> create_model(storage::Journal& journal, std::string_view name, std::string description,
                                        const User& owner, std::int64_t now_ms);

// Journals checkpoint `uuid` as the next version (1, 2, ...) of model `name`,
// for its owner or an admin (permission_denied otherwise). not_found for an
// unknown model or checkpoint; invalid_argument for a deleted checkpoint.
// `data_dir`: the master's, where the default checkpoint storage lies.
Result<wire::ModelVersion> register_model_version(storage::Journal& journal, const std::filesystem::path& data_dir,
                                                  std::string_view name, std::string_view uuid, const User& user,
                                                  std::int64_t now_ms);

// Every model with its number of versions, by name.
Result<wire::ModelList> list_models(const storage::Journal& journal);

// One model and its versions; not_found for an unknown name.
Result<wire::ModelDetail> describe_model(const storage::Journal& journal, std::string_view name);

}  // namespace volador::master
