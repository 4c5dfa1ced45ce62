#pragma once
// An agent's trial working folders: reclaimed when their rank ends, kept for
// a while after a rank that failed (for debugging), and the free space of the
// disk they live on, below which the agent starts no more trials.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::sandbox {

// The folder of `work_dir` that holds the worker processes' homes (actors/worker_sandbox.hpp).
inline constexpr const char* kWorkerHomes = "workers";

struct WorkFolderOptions {
  std::chrono::milliseconds keep_failed{std::chrono::hours(1)};  // --keep-failed-work-dirs
  std::uint64_t min_free_bytes = 1ull << 30;                     // --min-free-disk: below it no trial starts
};

class WorkFolders {
 public:
  explicit WorkFolders(WorkFolderOptions options = {}) : options_(options) {}

  // The rank working in `folder` (in its worker's home) ended at `now_ms`: a
  // clean end removes the folder now, a failed one at now_ms + keep_failed (by
  // reap(), which also removes the home it leaves empty: a failed rank's worker is gone).
  void rank_ended(const std::filesystem::path& folder, bool failed, std::int64_t now_ms);

  // Removes the kept folders whose time has come at `now_ms`.
  void reap(std::int64_t now_ms);

  // Removes the rank folders (kWorkerHomes/*/trial-*) under `work_dir` that an
  // earlier agent left and that were last changed more than keep_failed before
  // now, and the worker homes left empty.
  void reap_left_over(const std::filesystem::path& work_dir) const;

  // nullopt while `work_dir`'s disk has at least min_free_bytes free, else why
  // no trial may start there (naming the folder, its free space and the minimum).
  [[nodiscard]] std::optional<std::string> refusal(const std::filesystem::path& work_dir) const;

 private:
  WorkFolderOptions options_;
  std::map<std::filesystem::path, std::int64_t> kept_;  // folder -> when to remove it
};

// The bytes an unprivileged process may still write on `path`'s file system. Error io with errno's text.
Result<std::uint64_t> free_disk_bytes(const std::filesystem::path& path);

}  // namespace volador::sandbox
