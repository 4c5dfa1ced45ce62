#pragma once
// CheckpointStore on a POSIX filesystem that every node mounts at the same
// path (Determined's shared_fs): checkpoint <uuid> is the folder root/<uuid>.
// Unfinished work lives in root/.tmp-* folders on the same filesystem, so
// publishing is one rename(2); files, manifest, folders and the parent are
// fsynced before commit() returns.

#include <filesystem>
#include <memory>
#include <string_view>

#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::checkpoints {

class SharedFsStore final : public CheckpointStore {
 public:
  // Opens the store at `root`, creating the folder (and its parents) if
  // missing. Error io when it cannot be created or is not a folder.
  [[nodiscard]] static Result<std::unique_ptr<SharedFsStore>> open(const std::filesystem::path& root);

  [[nodiscard]] const std::filesystem::path& root() const override { return root_; }

  [[nodiscard]] Result<PendingCheckpoint> begin(std::string_view uuid) override;
  [[nodiscard]] Result<PendingCheckpoint> reserve(std::string_view uuid) override;
  [[nodiscard]] Result<PendingCheckpoint> begin_from(std::string_view uuid, const PendingCheckpoint& staging,
                                                     std::string_view name) override;
  [[nodiscard]] Result<CheckpointManifest> commit(const PendingCheckpoint& pending) override;
  [[nodiscard]] Status abort(const PendingCheckpoint& pending) override;
  [[nodiscard]] Status verify(std::string_view uuid) const override;
  [[nodiscard]] Result<std::filesystem::path> path(std::string_view uuid) const override;
  [[nodiscard]] Status remove(std::string_view uuid) override;
  [[nodiscard]] Status download(std::string_view uuid, const std::filesystem::path& dest_dir) const override;
  [[nodiscard]] Status sweep_incomplete() override;

 private:
  struct StoredManifest {
    std::string text;  // manifest.json as stored
    CheckpointManifest manifest;
  };

  explicit SharedFsStore(std::filesystem::path root) : root_(std::move(root)) {}

  [[nodiscard]] std::filesystem::path committed_dir(std::string_view uuid) const;
  [[nodiscard]] std::filesystem::path pending_dir(std::string_view uuid) const;
  Status check_pending(const PendingCheckpoint& pending) const;
  Status check_free(std::string_view uuid) const;
  Result<StoredManifest> load_manifest(std::string_view uuid) const;
  Status publish(const PendingCheckpoint& pending);

  std::filesystem::path root_;
};

}  // namespace volador::checkpoints
