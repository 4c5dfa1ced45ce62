#include "storage/journal/journal_validation.hpp"

#include <variant>

namespace volador::storage::validation {
namespace {

Result<std::string> json_text(const nlohmann::json& json, std::string_view what) {
  try {
    return json.dump();
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::invalid_argument(std::string(what) + " is not valid JSON: " + e.what()));
  }
}

// Success when `text` holds a value, else its error.
Status text_status(const Result<std::string>& text) {
  if (!text) return fail(text.error());
  return {};
}

}  // namespace

Result<std::string> hparams_text(const TrialRecord& record) {
  return json_text(record.hparams, "hparams of trial " + std::to_string(record.id));
}

Result<std::string> searcher_state_text(std::uint64_t experiment_id, const nlohmann::json& state) {
  return json_text(state, "searcher state of experiment " + std::to_string(experiment_id));
}

Status check_checkpoint(const CheckpointRecord& record) {
  if (!record.uuid.empty()) return {};
  return fail(Error::invalid_argument("checkpoint of trial " + std::to_string(record.trial_id) + " has an empty uuid"));
}

Status check_user(const UserRecord& record) {
  if (!record.name.empty()) return {};
  return fail(Error::invalid_argument("user has an empty name"));
}

Status check_token(const TokenRecord& record) {
  if (!record.token_hash.empty()) return {};
  return fail(Error::invalid_argument("token of user '" + record.user_name + "' has an empty hash"));
}

namespace {
Status check_model_name(std::string_view name) {
  if (!name.empty() && name.find('/') == std::string_view::npos) return {};
  return fail(Error::invalid_argument("model name '" + std::string(name) + "' is empty or holds a '/'"));
}
}  // namespace

Status check_model(const ModelRecord& record) { return check_model_name(record.name); }

Status check_model_version(const ModelVersionRecord& record) {
  if (auto name = check_model_name(record.model_name); !name) return name;
  if (record.version == 0) return fail(Error::invalid_argument("model '" + record.model_name + "' has a version 0"));
  if (record.checkpoint_uuid.empty())
    return fail(Error::invalid_argument("version " + std::to_string(record.version) + " of model '" + record.model_name +
                                        "' names no checkpoint"));
  if (auto hparams = json_text(record.hparams, "hparams of model '" + record.model_name + "'"); !hparams)
    return fail(hparams.error());
  return {};
}

Status check_counter_name(std::string_view counter) {
  if (!counter.empty()) return {};
  return fail(Error::invalid_argument("journal counter name is empty"));
}

Status check_operation(const JournalBatch::Operation& operation) {
  if (const auto* trial = std::get_if<TrialRecord>(&operation)) return text_status(hparams_text(*trial));
  if (const auto* state = std::get_if<JournalBatch::SearcherStatePut>(&operation)) {
    return text_status(searcher_state_text(state->experiment_id, state->state));
  }
  if (const auto* checkpoint = std::get_if<CheckpointRecord>(&operation)) return check_checkpoint(*checkpoint);
  if (const auto* user = std::get_if<UserRecord>(&operation)) return check_user(*user);
  if (const auto* token = std::get_if<TokenRecord>(&operation)) return check_token(*token);
  if (const auto* model = std::get_if<ModelRecord>(&operation)) return check_model(*model);
  if (const auto* version = std::get_if<ModelVersionRecord>(&operation)) return check_model_version(*version);
  if (const auto* raise = std::get_if<JournalBatch::CounterRaise>(&operation)) return check_counter_name(raise->counter);
  return {};
}

}  // namespace volador::storage::validation
