#include "storage/journal/registered_checkpoints.hpp"

namespace volador::storage {

Result<bool> RegisteredCheckpoints::contains(std::string_view uuid, const Loader& load) {
  std::lock_guard lock(mutex_);
  if (!loaded_) {
    auto versions = load();
    if (!versions) return fail(versions.error());
    for (const auto& version : *versions) add(version);
    loaded_ = true;
  }
  return versions_of_uuid_.contains(uuid);
}

void RegisteredCheckpoints::written(const ModelVersionRecord& version) {
  std::lock_guard lock(mutex_);
  if (loaded_) add(version);  // else the load will read it from the store
}

void RegisteredCheckpoints::add(const ModelVersionRecord& version) {
  auto& uuid = uuid_of_version_[{version.model_name, version.version}];
  if (uuid == version.checkpoint_uuid) return;
  if (!uuid.empty()) {
    auto replaced = versions_of_uuid_.find(uuid);
    if (--replaced->second == 0) versions_of_uuid_.erase(replaced);
  }
  uuid = version.checkpoint_uuid;
  ++versions_of_uuid_[uuid];
}

}  // namespace volador::storage
