#pragma once
// An agent's trial working folders: reclaimed when their rank ends, kept for
// a while after a rank that failed (for debugging), or kept for the next
// trial of the warm worker that ran a rank which ended cleanly (a spare:
// cleaned back to what the agent put in it, as FolderSnapshot tells, instead
// of removed and made again); and the free space of the disk they live on,
// below which the agent starts no more trials.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"
#include "runtime/sandbox/folder_snapshot.hpp"

namespace volador::sandbox {

// The folder of `work_dir` that holds the worker processes' homes (actors/worker_sandbox.hpp).
inline constexpr const char* kWorkerHomes = "workers";

struct WorkFolderOptions {
  std::chrono::milliseconds keep_failed{std::chrono::hours(1)};  // --keep-failed-work-dirs
  std::uint64_t min_free_bytes = 1ull << 30;                     // --min-free-disk: below it no trial starts
  // Whether a warm worker's next trial may reuse its last clean folder; the
  // agent sets it when ctime_marks_every_change holds for its work folder.
  bool reuse_clean = false;
  // The top-level names of a working folder that the worker remakes for every
  // trial (its checkpoint folders, its JSON files): a reused folder keeps them
  // when they hold nothing a trial could pass on, so that neither side makes
  // and removes them per trial.
  std::set<std::string> worker_scratch;
};

// Which model definition (the archive's bytes) a folder holds unpacked.
struct ArchiveKey {
  std::size_t size = 0;
  std::size_t hash = 0;
  bool operator==(const ArchiveKey&) const = default;
};
ArchiveKey archive_key(std::string_view archive);

// A rank's working folder as the agent prepared it: the model definition it
// unpacked there and what the folder then held.
struct PreparedFolder {
  std::filesystem::path path;
  ArchiveKey archive;
  FolderSnapshot contents;
};

class WorkFolders {
 public:
  explicit WorkFolders(WorkFolderOptions options = {}) : options_(options) {}

  // The rank working in `folder` (in its worker's home) ended at `now_ms`: a
  // clean end removes the folder now, a failed one at now_ms + keep_failed (by
  // reap(), which also removes the home it leaves empty: a failed rank's worker is gone).
  void rank_ended(const std::filesystem::path& folder, bool failed, std::int64_t now_ms);

  // The rank that worker `worker` ran in `folder` ended cleanly and the worker
  // waits for its next trial: the folder is kept for that trial when
  // reuse_clean is set (an earlier spare of the worker is removed), else removed now.
  void keep_for_next(std::uint64_t worker, PreparedFolder folder);

  // Worker `worker`'s spare folder, renamed `dest` and cleaned back to what
  // the agent put in it, when it holds the model definition `archive` and
  // the trials since changed nothing of it; nullopt otherwise (any spare is removed).
  std::optional<PreparedFolder> reuse(std::uint64_t worker, const ArchiveKey& archive, const std::filesystem::path& dest);

  // Worker `worker`'s process is gone: its spare folder is removed.
  void worker_ended(std::uint64_t worker);

  // Removes the kept folders whose time has come at `now_ms`.
  void reap(std::int64_t now_ms);

  // Removes the rank folders (kWorkerHomes/*/trial-*) under `work_dir` that an
  // earlier agent left and that were last changed more than keep_failed before
  // now, and the worker homes left empty.
  void reap_left_over(const std::filesystem::path& work_dir) const;

  // nullopt while `free_bytes`, what `work_dir`'s disk has free (free_disk_bytes),
  // is at least min_free_bytes, else why no trial may start there (naming the
  // folder, its free space and the minimum, or why its free space is unknown).
  [[nodiscard]] std::optional<std::string> refusal(const std::filesystem::path& work_dir,
                                                   const Result<std::uint64_t>& free_bytes) const;

 private:
  WorkFolderOptions options_;
  std::map<std::filesystem::path, std::int64_t> kept_;  // folder -> when to remove it
  std::map<std::uint64_t, PreparedFolder> spares_;       // by worker: its last clean folder
};

// The bytes an unprivileged process may still write on `path`'s file system. Error io with errno's text.
Result<std::uint64_t> free_disk_bytes(const std::filesystem::path& path);

}  // namespace volador::sandbox
