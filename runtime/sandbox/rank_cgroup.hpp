#pragma once
// One rank worker's cgroup: its memory and process limits, whether it broke
// them, and ending everything in it. Everything the worker starts (a
// command trial's command and whatever that forks) inherits the cgroup, so
// the limits hold for the rank's whole process tree and killing the cgroup's
// processes ends that tree however it detached.
//
// Breaking a limit does not end the rank by itself: the memory limit's OOM
// killer is off (v1: memory.oom_control) or kills the whole cgroup at once
// (v2: memory.oom.group), and a process limit only makes fork() fail. The
// owner polls breach() and calls kill_all(), so a rank that broke a limit
// always ends whole, with the reason.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/core/unique_fd.hpp"
#include "runtime/sandbox/cgroup_layout.hpp"

namespace volador::sandbox {

// A rank's limits; 0 leaves that limit off.
struct RankLimits {
  std::uint64_t memory_bytes = 0;   // the rank's processes together (memory.limit_in_bytes / memory.max)
  std::uint32_t max_processes = 0;  // processes and threads alive at once (pids.max)
  bool operator==(const RankLimits&) const = default;
};

// "killed: memory limit 64 MiB", "killed: process limit 64": what ended a rank that broke `limits`.
std::string memory_breach(const RankLimits& limits);
std::string process_breach(const RankLimits& limits);

// The kernel's counts in a cgroup that tell that its limits were broken.
struct BreachCounters {
  std::uint64_t oom_kills = 0;      // v1: memory.oom_control, v2: memory.events ("oom_kill")
  std::uint64_t refused_forks = 0;  // pids.events ("max")
  bool under_oom = false;           // v1: memory.oom_control ("under_oom"): a process waits, frozen, at the memory limit
};

// The files of a cgroup that hold its BreachCounters, opened once and read
// as often as needed: each read from offset 0 gets the kernel's counts of
// that moment (a warm worker's cgroup is read per trial and at every flush).
// A file that could not be opened reads as 0s.
class BreachCounterFiles {
 public:
  explicit BreachCounterFiles(const CgroupDirs& dirs);
  [[nodiscard]] BreachCounters read() const;

 private:
  UniqueFd memory_;  // v1: memory.oom_control, v2: memory.events
  UniqueFd pids_;    // pids.events
};

// The counts of the cgroup at `dirs` now; 0 for a count whose file cannot be read.
BreachCounters read_breach_counters(const CgroupDirs& dirs);

// What a rank under `limits` broke between the counts `before` and `now`,
// memory first (an OOM may also refuse forks); nullopt when nothing.
std::optional<std::string> breach_between(const RankLimits& limits, const BreachCounters& before,
                                          const BreachCounters& now);

class RankCgroup {
 public:
  // Creates the cgroup at `dirs` (its parent must exist) and applies `limits`.
  // Error io naming the file when a folder or a limit cannot be written.
  static Result<RankCgroup> create(CgroupDirs dirs, const RankLimits& limits);

  // Sets new limits (a warm worker's next trial): only a limit that differs
  // from the one in force is written. Breaches count from now.
  Status apply(const RankLimits& limits);

  // The cgroup.procs files a new process writes "0" into to join the cgroup (one per hierarchy).
  [[nodiscard]] std::vector<std::filesystem::path> procs_files() const;

  // What the rank broke since its limits were applied, as memory_breach or
  // process_breach tell it; nullopt when nothing.
  [[nodiscard]] std::optional<std::string> breach() const;

  // SIGKILL to every process in the cgroup (cgroup.kill where v2 has it).
  // True when none is left in it now; false: call again later.
  bool kill_all() const;

  // Removes the cgroup's folders; false (nothing lost) while processes remain.
  bool remove() const;

  [[nodiscard]] const CgroupDirs& dirs() const { return dirs_; }
  [[nodiscard]] const RankLimits& limits() const { return limits_; }

 private:
  RankCgroup(CgroupDirs dirs, const RankLimits& limits)
      : dirs_(std::move(dirs)), limits_(limits), counters_(dirs_), applied_at_(counters_.read()) {}

  CgroupDirs dirs_;
  RankLimits limits_;  // as written to the cgroup's files
  BreachCounterFiles counters_;
  BreachCounters applied_at_;  // the counters when the limits were applied
};

// SIGKILL to every process in the cgroup at `dirs` (cgroup.kill where v2 has
// it), a few rounds; true when none is left in it now.
bool kill_cgroup_processes(const CgroupDirs& dirs);

// Creates the cgroup's folders (those that exist already are kept). Error io naming the folder.
Status create_cgroup_folders(const CgroupDirs& dirs);

// Removes the cgroup at `dirs`; true when it is gone (false while processes remain).
bool remove_cgroup(const CgroupDirs& dirs);

// Writes `text` to the cgroup file `path`. Error io with errno's text.
Status write_cgroup_file(const std::filesystem::path& path, const std::string& text);

// The value of `key` in `text`, a flat keyed cgroup file's ("key value"
// lines, e.g. memory.events); nullopt when the key is missing.
std::optional<std::uint64_t> cgroup_counter(std::string_view text, std::string_view key);

// The pids listed in the cgroup.procs file `path` (empty when it cannot be read).
std::vector<int> read_cgroup_procs(const std::filesystem::path& path);

}  // namespace volador::sandbox
