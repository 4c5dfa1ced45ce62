#pragma once
// Checkpoint storage: one folder per checkpoint uuid, written so that no
// partial checkpoint is ever visible.
//
//   auto pending = store.begin(uuid);        // a private folder to write into
//   ... the rank writes its files under pending->dir ...
//   auto manifest = store.commit(*pending);  // checksummed, durable, visible
//   ... only now the caller journals the checkpoint ...
//
// A folder that commit() has made visible is complete and has manifest.json;
// an unfinished one is invisible to path()/verify()/download() and is removed
// by abort() or by sweep_incomplete() at the next start. Ids must be canonical
// lowercase UUIDs (uuid.hpp); any other id is Error::invalid_argument.
// Thread-safety: calls for different uuids may run concurrently, from any
// thread or process sharing the storage; sweep_incomplete() only while no
// checkpoint is being written.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "storage/checkpoints/manifest.hpp"

namespace volador::checkpoints {

// A checkpoint being written: plain data, so it can be handed between the
// code that writes the files and the code that commits them.
struct PendingCheckpoint {
  std::string uuid;
  std::filesystem::path dir;  // write the checkpoint's files here (subfolders allowed)
};

class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;

  // The folder checkpoints are written into and read from; ranks write there
  // themselves, so a rank's sandbox shows it.
  [[nodiscard]] virtual const std::filesystem::path& root() const = 0;

  // Creates the private folder for `uuid`. Error already_exists when the uuid
  // is committed or being written; io when the folder cannot be made.
  [[nodiscard]] virtual Result<PendingCheckpoint> begin(std::string_view uuid) = 0;

  // The private folder for `uuid`, not made yet: for a writer that makes it
  // itself, when it writes anything (a command's rank, which most often
  // saves nothing); abort() and sweep_incomplete() remove it as begin()'s.
  // Errors as begin(), io excepted.
  [[nodiscard]] virtual Result<PendingCheckpoint> reserve(std::string_view uuid) = 0;

  // Begins `uuid` with the folder `name` (one path segment) inside the
  // pending checkpoint `staging`, moved in by one rename: a writer that cannot
  // be handed a folder per checkpoint in advance (a command's rank) fills
  // subfolders of one staging folder. Errors as begin(); invalid_argument
  // when `staging` is not this store's or `name` is not a plain name;
  // not_found when `staging` holds no folder `name`.
  [[nodiscard]] virtual Result<PendingCheckpoint> begin_from(std::string_view uuid, const PendingCheckpoint& staging,
                                                             std::string_view name) = 0;

  // Checksums the files, writes manifest.json, makes everything durable and
  // then visible. Regular files and folders only (invalid_argument naming a
  // symlink, a special file or a top-level manifest.json). On any error the
  // private folder is removed and nothing becomes visible.
  [[nodiscard]] virtual Result<CheckpointManifest> commit(const PendingCheckpoint& pending) = 0;

  // Drops an uncommitted checkpoint; ok when nothing is left of it.
  [[nodiscard]] virtual Status abort(const PendingCheckpoint& pending) = 0;

  // Re-reads every file against the manifest. Error not_found when no such
  // checkpoint; corruption naming the first file that is missing or differs
  // in size or SHA-256, or when the manifest itself is damaged.
  [[nodiscard]] virtual Status verify(std::string_view uuid) const = 0;

  // The committed folder (readable in place on shared_fs); not_found if none.
  [[nodiscard]] virtual Result<std::filesystem::path> path(std::string_view uuid) const = 0;

  // Deletes a committed checkpoint; ok if it does not exist. Atomic for
  // readers: the folder disappears at once, then its content is removed.
  [[nodiscard]] virtual Status remove(std::string_view uuid) = 0;

  // Copies the files and manifest.json into `dest_dir` (its parents are
  // created), which must be missing or empty (already_exists otherwise),
  // checking every byte against the manifest as it copies: a verified copy in
  // one read. `dest_dir` appears only when complete, by a rename from a
  // sibling temp folder; on any error (corruption, io) nothing is left there.
  [[nodiscard]] virtual Status download(std::string_view uuid, const std::filesystem::path& dest_dir) const = 0;

  // Removes every unfinished checkpoint left by a crash.
  [[nodiscard]] virtual Status sweep_incomplete() = 0;
};

// The store for an experiment's `checkpoint_storage`: shared_fs under
// host_path[/storage_path] (host_path must exist; the rest is created), or,
// when absent, a shared_fs store at `default_root` (created if missing).
// Error invalid_argument for s3, gcs and azure ("checkpoint_storage.type s3 is
// not available in this build") and for a storage_path outside host_path;
// not_found when host_path is not an existing folder (an unmounted share);
// io when the root cannot be created.
[[nodiscard]] Result<std::unique_ptr<CheckpointStore>> make_checkpoint_store(
    const std::optional<config::CheckpointStorage>& storage, const std::filesystem::path& default_root);

}  // namespace volador::checkpoints
