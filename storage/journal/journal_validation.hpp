#pragma once
// What the Journal refuses, with invalid_argument and before writing
// anything: JSON that cannot be dumped (e.g. a string that is not UTF-8), a
// checkpoint with an empty uuid, an empty counter name, a user with an empty
// name, a token with an empty hash, a model or model version without a
// usable name. Pure functions.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::storage::validation {

// The trial's hparams as JSON text; invalid_argument when they cannot be dumped.
Result<std::string> hparams_text(const TrialRecord& record);
// The searcher state as JSON text; invalid_argument when it cannot be dumped.
Result<std::string> searcher_state_text(std::uint64_t experiment_id, const nlohmann::json& state);
// invalid_argument for a checkpoint with an empty uuid.
Status check_checkpoint(const CheckpointRecord& record);
// invalid_argument for a user with an empty name or a token with an empty hash.
Status check_user(const UserRecord& record);
Status check_token(const TokenRecord& record);
// invalid_argument for a model or model version whose name is empty or holds
// a '/', a version 0 or an empty checkpoint uuid.
Status check_model(const ModelRecord& record);
Status check_model_version(const ModelVersionRecord& record);
// invalid_argument for an empty counter name (Journal::next_id).
Status check_counter_name(std::string_view counter);
// invalid_argument for an operation that Journal::commit refuses.
Status check_operation(const JournalBatch::Operation& operation);

}  // namespace volador::storage::validation
