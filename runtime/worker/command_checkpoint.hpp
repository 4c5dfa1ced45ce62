#pragma once
// A command trial's checkpoint folders on one rank, all inside the trial's
// working folder (a sandbox that mounts that folder shows them too):
//   .volador-checkpoints/current    VOLADOR_CHECKPOINT_DIR: empty when the
//                                   command starts; it writes its files here
//   .volador-checkpoints/latest     VOLADOR_LATEST_CHECKPOINT, when resuming:
//                                   the trial's latest checkpoint, copied and
//                                   verified against its manifest
//   .volador-checkpoints/snapshots  volador.reporting.checkpoint()'s copies of
//                                   `current`, one folder per call (it makes
//                                   `snapshots` at its first call)
// Rank 0 captures a checkpoint (the current folder at the command's exit, a
// snapshot when its line is read) into a new folder of the run's staging
// folder in checkpoint storage; the trial then commits it (manifest,
// checksums) and registers it like any trial's checkpoint.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/command/environment.hpp"
#include "runtime/core/error.hpp"

namespace volador::worker {

inline constexpr const char* kCheckpointDirVariable = "VOLADOR_CHECKPOINT_DIR";
inline constexpr const char* kLatestCheckpointVariable = "VOLADOR_LATEST_CHECKPOINT";

class CommandCheckpoints {
 public:
  // The folders of one run under `work_dir`: `current` made empty (no other
  // folder: each costs an inode, a trivial trial's main file-system work), and
  // `restore_path` (a committed checkpoint folder in checkpoint storage;
  // empty: a fresh start) copied into `latest`, every byte checked against
  // its manifest. Errors (io, corruption) name the folder or checkpoint.
  static Result<CommandCheckpoints> prepare(const std::filesystem::path& work_dir, const std::string& restore_path);

  // VOLADOR_CHECKPOINT_DIR, and VOLADOR_LATEST_CHECKPOINT when resuming.
  [[nodiscard]] command::EnvironmentVariables environment() const;

  // Saves the snapshot named `snapshot` (moved, or copied and removed), or the
  // current folder when `snapshot` is empty, as a new folder of `staging`
  // (made now if the trial only reserved it).
  // Returns its name, or nullopt when there is no file to save (nothing is
  // made). Errors: invalid_argument naming a symlink, a special file or a
  // top-level manifest.json (the checkpoint's own), or a missing snapshot; io.
  Result<std::optional<std::string>> capture(const std::filesystem::path& staging, const std::string& snapshot);

  // Removes the snapshot named `snapshot`, if any: a rank other than 0 saves none.
  void drop_snapshot(const std::string& snapshot) const;

 private:
  CommandCheckpoints(std::filesystem::path root, bool restored) : root_(std::move(root)), restored_(restored) {}

  [[nodiscard]] std::filesystem::path current() const { return root_ / "current"; }
  [[nodiscard]] std::filesystem::path latest() const { return root_ / "latest"; }
  [[nodiscard]] std::filesystem::path snapshots() const { return root_ / "snapshots"; }

  std::filesystem::path root_;
  bool restored_;
  std::uint64_t captures_ = 0;
};

}  // namespace volador::worker
