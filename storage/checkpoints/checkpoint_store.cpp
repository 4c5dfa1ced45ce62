#include "storage/checkpoints/checkpoint_store.hpp"

#include "storage/checkpoints/shared_fs_store.hpp"

namespace volador::checkpoints {
namespace {

namespace fs = std::filesystem;

// host_path joined with storage_path, which may be relative to it or absolute
// inside it (Determined's rule); host_path must already exist.
Result<fs::path> shared_fs_root(const config::CheckpointStorage& storage) {
  const fs::path host = fs::path(storage.host_path).lexically_normal();
  if (!host.is_absolute()) {
    return fail(Error::invalid_argument("checkpoint_storage.host_path '" + storage.host_path + "' is not an absolute path"));
  }
  std::error_code ec;
  if (!fs::is_directory(host, ec)) {
    return fail(Error::not_found("checkpoint_storage.host_path " + host.string() + " is not an existing folder"));
  }
  const fs::path root = (host / storage.storage_path).lexically_normal();
  const fs::path inside = root.lexically_relative(host);
  if (inside.empty() || *inside.begin() == "..") {
    return fail(Error::invalid_argument("checkpoint_storage.storage_path '" + storage.storage_path +
                                        "' is outside host_path " + host.string()));
  }
  return root;
}

Result<std::unique_ptr<CheckpointStore>> open_shared_fs(const fs::path& root) {
  auto store = SharedFsStore::open(root);
  if (!store) return fail(store.error());
  return std::unique_ptr<CheckpointStore>(std::move(*store));
}

}  // namespace

Result<std::unique_ptr<CheckpointStore>> make_checkpoint_store(const std::optional<config::CheckpointStorage>& storage,
                                                               const fs::path& default_root) {
  if (!storage) return open_shared_fs(default_root);
  if (storage->type != "shared_fs") {
    return fail(Error::invalid_argument("checkpoint_storage.type " + storage->type + " is not available in this build"));
  }
  auto root = shared_fs_root(*storage);
  if (!root) return fail(root.error());
  return open_shared_fs(*root);
}

}  // namespace volador::checkpoints
