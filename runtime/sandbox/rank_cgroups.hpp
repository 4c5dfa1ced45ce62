#pragma once
// An agent's rank cgroups: one per worker process, all in the agent's own
// group `<parent>/volador-agent-<pid>`, so agents sharing a host (or a
// crashed agent's leftovers) never touch each other's. A warm worker keeps
// its cgroup from trial to trial with the limits of the trial it runs now.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/sandbox/cgroup_layout.hpp"
#include "runtime/sandbox/rank_cgroup.hpp"

namespace volador::sandbox {

// What an operator sets about an agent's trial limits.
struct LimitOptions {
  bool enabled = true;        // false: ranks run without cgroups (--no-trial-limits)
  std::string cgroup_parent;  // where the agent's group goes in each hierarchy; empty: the agent's own cgroup
  // The most one rank may use, which is also what it gets when its experiment
  // asks for nothing; 0s: default_rank_limits at start.
  RankLimits allowed;
};

// What a rank may use when the operator did not say: the host's memory
// shared by its slots, and kDefaultMaxProcesses.
inline constexpr std::uint32_t kDefaultMaxProcesses = 4096;
RankLimits default_rank_limits(std::uint64_t host_memory_bytes, std::size_t slots);

// The host's physical memory in bytes.
std::uint64_t host_memory_bytes();

// The limits of a rank whose experiment asks for `requested` (a 0: the
// allowed value) on an agent allowing `allowed` (0: no limit). Error
// invalid_argument naming resources.memory_limit or resources.max_processes
// when it asks for more than allowed.
Result<RankLimits> rank_limits(const RankLimits& requested, const RankLimits& allowed);

class RankCgroups {
 public:
  // Inactive: every rank runs without limits.
  RankCgroups() = default;

  // Creates the group of agent process `agent` under `parent` (v2: with the
  // memory and pids controllers enabled for it), after ending the groups that
  // agents no longer running left there: their processes killed, their
  // folders removed. Error io when the group cannot be created.
  static Result<RankCgroups> open(const CgroupDirs& parent, pid_t agent);

  [[nodiscard]] bool active() const { return state_ != nullptr; }

  // Worker `worker`'s cgroup, carrying `limits`: created, or given them when
  // it exists (a warm worker's next trial). Returns the cgroup.procs files its
  // new process joins before it runs anything (none when inactive).
  Result<std::vector<std::filesystem::path>> assign(std::uint64_t worker, const RankLimits& limits);

  // The workers that broke a limit since the last call, each with its reason
  // (memory_breach, process_breach); everything in their cgroups is killed.
  // Also finishes the removal of released cgroups whose processes lingered.
  std::vector<std::pair<std::uint64_t, std::string>> enforce();

  // Worker `worker`'s process exited: whatever is left in its cgroup is killed
  // and the cgroup removed (by later enforce() calls while processes linger).
  // Returns the limit it broke, if it broke one: the one enforce() found, or
  // read from the cgroup now, as the kernel may end a rank before enforce()
  // looks (v2 kills the whole group at its OOM; a fork bomb may exit first).
  std::optional<std::string> release(std::uint64_t worker);

  // Kills what is left in every cgroup and removes them and the group.
  ~RankCgroups();
  RankCgroups(RankCgroups&&) noexcept = default;
  RankCgroups& operator=(RankCgroups&&) noexcept;

 private:
  struct Rank {
    RankCgroup cgroup;
    std::optional<std::string> breach;
    bool released = false;
  };
  struct State {
    CgroupDirs group;
    std::map<std::uint64_t, Rank> ranks;
  };
  void close();
  std::unique_ptr<State> state_;
};

// The stale groups' prefix: "volador-agent-<pid>" (and "volador-agent-<pid>-home" on v2).
inline constexpr std::string_view kGroupPrefix = "volador-agent-";

}  // namespace volador::sandbox
