#include "runtime/cli/model_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "runtime/cli/commands.hpp"
#include "runtime/cli/views.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"

namespace volador::cli {

Status copy_checkpoint(const std::string& path, const std::string& uuid, const std::string& dir) {
  auto store = checkpoints::SharedFsStore::open(std::filesystem::path(path).parent_path());
  if (!store) return fail(store.error());
  return (*store)->download(uuid, dir);
}

int create_model(MasterClient& client, const std::string& name, const std::string& description, bool json) {
  auto model = client.create_model(name, description);
  if (!model) return report(model.error());
  std::cout << (json ? nlohmann::json(*model).dump(2) : "created model " + model->name) << "\n";
  return 0;
}

int register_model_version(MasterClient& client, const std::string& name, const std::string& uuid, bool json) {
  auto version = client.register_model_version(name, uuid);
  if (!version) return report(version.error());
  if (json) std::cout << nlohmann::json(*version).dump(2) << "\n";
  else
    std::cout << fmt::format("model {} version {}: checkpoint {} (experiment {}, trial {}, {} batches)\n", name,
                             version->version, uuid, version->experiment_id, version->trial_id, version->batches);
  return 0;
}

int list_models(MasterClient& client, bool json) {
  auto list = client.models();
  if (!list) return report(list.error());
  std::cout << (json ? nlohmann::json(list->models).dump(2) + "\n" : render_table(*list));
  return 0;
}

int describe_model(MasterClient& client, const std::string& name, bool json) {
  auto detail = client.model(name);
  if (!detail) return report(detail.error());
  std::cout << (json ? nlohmann::json(*detail).dump(2) + "\n" : render_table(*detail));
  return 0;
}

int download_model(MasterClient& client, const std::string& name, std::uint32_t version, const std::string& dir) {
  auto detail = client.model(name);
  if (!detail) return report(detail.error());
  const auto& versions = detail->versions;
  if (versions.empty()) return report(Error::not_found("model '" + name + "' has no version yet"));
  auto chosen = version == 0 ? std::prev(versions.end())
                             : std::ranges::find(versions, version, &wire::ModelVersion::version);
  if (chosen == versions.end())
    return report(Error::not_found(fmt::format("model '{}' has no version {} (its latest is {})", name, version,
                                               versions.back().version)));
  if (auto copied = copy_checkpoint(chosen->path, chosen->checkpoint_uuid, dir); !copied) return report(copied.error());
  std::cout << fmt::format("model {} version {} (checkpoint {}) -> {}\n", name, chosen->version,
                           chosen->checkpoint_uuid, dir);
  return 0;
}

}  // namespace volador::cli
