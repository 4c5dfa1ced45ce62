#include "master/model_registry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "master/master_queries.hpp"

namespace volador::master {
namespace {

constexpr std::size_t kMaxModelName = 64;

bool name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

wire::ModelSummary summary_of(const storage::ModelRecord& model, std::uint32_t versions) {
  return {.name = model.name,
          .description = model.description,
          .owner = model.owner,
          .created_at_ms = model.created_at_ms,
          .num_versions = versions};
}

wire::ModelVersion version_of(const storage::ModelVersionRecord& v) {
  return {.model_name = v.model_name,
          .version = v.version,
          .checkpoint_uuid = v.checkpoint_uuid,
          .experiment_id = v.experiment_id,
          .trial_id = v.trial_id,
          .batches = v.batches,
          .hparams = v.hparams.dump(),
          .metrics = v.metrics,
          .registered_by = v.registered_by,
          .created_at_ms = v.created_at_ms,
          .path = v.path};
}

// The model's owner or an admin may add versions to it.
Status check_may_register(const User& user, const storage::ModelRecord& model) {
  if (user.admin || user.name == model.owner) return {};
  return fail(Error::permission_denied(
      fmt::format("model '{}' belongs to '{}': only its owner or an admin can register versions of it", model.name,
                  model.owner)));
}

// The checkpoint `uuid` as the query answers it (with its folder); invalid_argument when deleted.
Result<wire::CheckpointInfo> live_checkpoint(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                             std::string_view uuid) {
  auto found = find_checkpoint(journal, data_dir, std::string(uuid));
  if (!found) return fail(found.error());
  if (found->checkpoints.empty()) return fail(Error::not_found(fmt::format("checkpoint {} not found", uuid)));
  auto& c = found->checkpoints.front();
  if (c.state != CheckpointState::active || c.path.empty())
    return fail(Error::invalid_argument(fmt::format("checkpoint {} was deleted: only a live checkpoint can be registered", uuid)));
  return std::move(c);
}

}  // namespace

Status check_model_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxModelName)
    return fail(Error::invalid_argument(fmt::format("model name '{}': 1 to {} characters", name, kMaxModelName)));
  if (auto bad = std::ranges::find_if_not(name, name_character); bad != name.end())
    return fail(Error::invalid_argument(
        fmt::format("model name '{}': '{}' is not allowed (letters, digits, '_', '.', '-')", name, *bad)));
  return {};
}

Result<wire::ModelSummary> create_model(storage::Journal& journal, std::string_view name, std::string description,
                                        const User& owner, std::int64_t now_ms) {
  if (auto valid = check_model_name(name); !valid) return fail(valid.error());
  auto existing = journal.model(name);
  if (existing) return fail(Error::already_exists(fmt::format("model '{}' exists", name)));
  if (existing.error().code != ErrorCode::not_found) return fail(existing.error());
  storage::ModelRecord record{.name = std::string(name), .description = std::move(description), .owner = owner.name,
                              .created_at_ms = now_ms};
  if (auto put = journal.put_model(record); !put) return fail(put.error());
  return summary_of(record, 0);
}

Result<wire::ModelVersion> register_model_version(storage::Journal& journal, const std::filesystem::path& data_dir,
                                                  std::string_view name, std::string_view uuid, const User& user,
                                                  std::int64_t now_ms) {
  auto model = journal.model(name);
  if (!model) return fail(model.error());
  if (auto allowed = check_may_register(user, *model); !allowed) return fail(allowed.error());
  auto checkpoint = live_checkpoint(journal, data_dir, uuid);
  if (!checkpoint) return fail(checkpoint.error());
  auto trial = journal.trial(checkpoint->trial_id);
  if (!trial) return fail(trial.error());
  auto versions = journal.model_versions(name);
  if (!versions) return fail(versions.error());
  storage::ModelVersionRecord record{.model_name = model->name,
                                     .version = versions->empty() ? 1u : versions->back().version + 1,
                                     .checkpoint_uuid = checkpoint->uuid,
                                     .experiment_id = checkpoint->experiment_id,
                                     .trial_id = checkpoint->trial_id,
                                     .batches = checkpoint->batches,
                                     .hparams = trial->hparams,
                                     .metrics = checkpoint->metrics,
                                     .registered_by = user.name,
                                     .created_at_ms = now_ms,
                                     .path = checkpoint->path};
  if (auto put = journal.put_model_version(record); !put) return fail(put.error());
  return version_of(record);
}

Result<wire::ModelList> list_models(const storage::Journal& journal) {
  auto models = journal.models();
  auto versions = journal.model_versions("");
  if (!models) return fail(models.error());
  if (!versions) return fail(versions.error());
  wire::ModelList list;
  for (const auto& model : *models) {
    const auto count = std::ranges::count_if(*versions, [&](const auto& v) { return v.model_name == model.name; });
    list.models.push_back(summary_of(model, static_cast<std::uint32_t>(count)));
  }
  return list;
}

Result<wire::ModelDetail> describe_model(const storage::Journal& journal, std::string_view name) {
  auto model = journal.model(name);
  if (!model) return fail(model.error());
  auto versions = journal.model_versions(name);
  if (!versions) return fail(versions.error());
  wire::ModelDetail detail{.summary = summary_of(*model, static_cast<std::uint32_t>(versions->size())), .versions = {}};
  for (const auto& v : *versions) detail.versions.push_back(version_of(v));
  return detail;
}

}  // namespace volador::master
