#include "runtime/config/checkpoint_storage.hpp"

#include <array>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 4> kTypes{"shared_fs", "s3", "gcs", "azure"};
constexpr std::array<std::string_view, 6> kSharedFsKeys{
    "type", "save_experiment_best", "save_trial_best", "save_trial_latest", "host_path",
    "storage_path"};
constexpr std::array<std::string_view, 9> kS3Keys{
    "type",   "save_experiment_best", "save_trial_best", "save_trial_latest", "bucket",
    "access_key", "secret_key",       "prefix",          "endpoint_url"};
constexpr std::array<std::string_view, 6> kGcsKeys{
    "type", "save_experiment_best", "save_trial_best", "save_trial_latest", "bucket", "prefix"};
constexpr std::array<std::string_view, 8> kAzureKeys{
    "type",      "save_experiment_best", "save_trial_best", "save_trial_latest",
    "container", "connection_string",    "account_url",     "credential"};

Keys keys_of(std::string_view type) {
  if (type == "s3") return kS3Keys;
  if (type == "gcs") return kGcsKeys;
  if (type == "azure") return kAzureKeys;
  return kSharedFsKeys;
}

void read_location(const Section& section, CheckpointStorage& storage) {
  if (storage.type == "shared_fs") {
    section.read_required("host_path", storage.host_path, read_absolute_path);
    section.read("storage_path", storage.storage_path, read_string);
    return;
  }
  if (storage.type == "azure") {
    section.read_required("container", storage.container, read_nonempty_string);
    section.read("connection_string", storage.connection_string, read_string);
    section.read("account_url", storage.account_url, read_string);
    section.read("credential", storage.credential, read_string);
    if (section.get("connection_string").has_value() == section.get("account_url").has_value()) {
      section.diagnostics().report(section.node(), section.field("connection_string"),
                                   "azure storage needs exactly one of connection_string and account_url");
    }
    return;
  }
  section.read_required("bucket", storage.bucket, read_nonempty_string);
  section.read("prefix", storage.prefix, read_string);
  if (storage.type == "s3") {
    section.read_required("access_key", storage.access_key, read_string);
    section.read_required("secret_key", storage.secret_key, read_string);
    section.read("endpoint_url", storage.endpoint_url, read_string);
  }
}

}  // namespace

std::vector<Keys> checkpoint_storage_key_sets() { return {kSharedFsKeys, kS3Keys, kGcsKeys, kAzureKeys}; }

CheckpointStorage read_checkpoint_storage(Diagnostics& diag, const YAML::Node& node,
                                          const std::string& field) {
  CheckpointStorage storage;
  if (auto type = Section::peek(node, "type")) {
    auto read = ReadChoice{kTypes}(diag, *type, join_path(field, "type"));
    if (!read) return storage;
    storage.type = *read;
  }
  const Section section(diag, node, field, keys_of(storage.type));
  section.read("save_experiment_best", storage.save_experiment_best, read_count_u32);
  section.read("save_trial_best", storage.save_trial_best, read_count_u32);
  section.read("save_trial_latest", storage.save_trial_latest, read_count_u32);
  read_location(section, storage);
  return storage;
}

}  // namespace volador::config
