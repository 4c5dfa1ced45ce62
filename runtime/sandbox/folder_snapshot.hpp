#pragma once
// What a rank's working folder held when the agent prepared it, so that the
// folder can be made ready for the worker's next trial by removing what the
// trial added, rather than removed and unpacked again (making files is what
// costs: each new inode scans for recently deleted ones on ext4 without a
// journal). Every entry's path, inode, mode, owner, size and change time
// (ctime) are recorded: a write, truncation, chmod, chown, link or rename
// moves an inode's ctime, and a removed or replaced entry is missing or has
// another inode. That a change right after the agent's stat still moves
// the ctime holds only where the kernel then takes a fine-grained time
// (multigrain timestamps, Linux 6.13+ on ext4, xfs, btrfs, tmpfs):
// ctime_marks_every_change tells.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "runtime/core/error.hpp"
#include "runtime/core/unique_fd.hpp"

namespace volador::sandbox {

class FolderSnapshot {
 public:
  // What `dir` holds now: `dir` itself and every entry under it (symlinks not
  // followed). Error io naming the path that could not be read.
  static Result<FolderSnapshot> take(const std::filesystem::path& dir);

  // Makes `dir` hold what it held when taken: every entry the snapshot does
  // not hold is removed, but the top-level `worker_scratch` names that hold
  // nothing a trial could pass on (see holds_nothing_to_pass_on), which the
  // worker remakes for every trial. True when `dir` and every entry it held
  // are still there, unchanged (a folder may have gained entries, which are
  // removed); false on the first change found, `dir` then partly cleaned (remove it).
  [[nodiscard]] bool restore(const std::filesystem::path& dir, const std::set<std::string>& worker_scratch = {}) const;

  // Records the regular file `name` (relative to `dir`) as it is now, after
  // the agent rewrote it. Error io when it cannot be read.
  Status refresh(const std::filesystem::path& dir, const std::filesystem::path& name);

 private:
  struct Entry {
    std::uint64_t inode = 0;
    std::uint32_t mode = 0;  // type and permissions
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    std::uint64_t size = 0;
    std::int64_t ctime_s = 0;
    std::uint32_t ctime_ns = 0;
    bool operator==(const Entry&) const = default;
  };
  // The entry `name` of the open folder `at` (the folder itself when `name` is empty), or at the path `path`.
  static Result<Entry> read_entry(int at, const std::filesystem::path& name);
  static Result<Entry> read_entry(const std::filesystem::path& path);
  bool restore_folder(const std::filesystem::path& dir, const UniqueFd& folder, const Entry& was,
                      const std::filesystem::path& relative, const std::set<std::string>& worker_scratch,
                      std::size_t& seen) const;

  Entry root_;
  std::map<std::filesystem::path, Entry> entries_;  // by path relative to the folder
};

// Whether `path` holds nothing a trial could pass on to the next through a
// name its worker remakes: a regular file with no other link, its owner
// able to read and write it, no set-id bit (the worker writes it anew, and no
// other name shares its bytes), or a folder holding only folders, each one
// its owner may list, enter and change, 32 deep at most (the worker empties
// it). Symlinks and anything else: false.
bool holds_nothing_to_pass_on(const std::filesystem::path& path);

// Whether a change to a file of `dir`'s file system right after a stat of it
// always moves its ctime (probed: a file made in `dir`, stat'ed and written
// to in turn a few dozen times, then removed). False when it cannot tell.
bool ctime_marks_every_change(const std::filesystem::path& dir);

}  // namespace volador::sandbox
