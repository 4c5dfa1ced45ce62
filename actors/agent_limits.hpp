#pragma once
// The agent's side of its ranks' limits and working folders. Limits (runtime/sandbox/rank_cgroups.hpp):
// each worker process runs in a cgroup of its own carrying the limits of the
// trial it runs now; a rank that breaks one is killed whole and its end
// reported with the limit ("killed: memory limit 64 MiB"). Without usable
// cgroups (no root, no controllers) the agent says so once and runs its
// ranks without limits. Working folders (runtime/sandbox/work_folders.hpp)
// go when their rank ends, after the operator's delay when it failed, and a
// work disk short of space refuses launches: the agent tells the master's
// pool, which gives it no new trial until it reports room again.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "actors/agent_actor.hpp"

namespace volador::actors {

// Opens the agent's cgroups as its options say, ending what a dead agent left;
// logs why and leaves them inactive when it cannot.
void open_rank_limits(AgentState& state);

// What its ranks may use at most (0s when it runs them without limits), in the registration `info`.
void describe_rank_limits(const AgentState& state, wire::AgentInfo& info);

// `spec`'s limits (resources.memory_limit and max_processes, else the
// agent's); 0s when the agent runs its ranks without limits. Errors as limit_rank's.
Result<sandbox::RankLimits> resolved_rank_limits(const AgentState& state, const wire::LaunchSpec& spec);

// Worker `worker`'s cgroup set to `spec`'s limits (resources.memory_limit
// and max_processes, else the agent's); the files its new process joins.
// Error invalid_argument naming the field when the trial asks for more than
// the agent allows, or for a limit while the agent runs its ranks without any.
Result<std::vector<std::filesystem::path>> limit_rank(AgentState& state, std::uint64_t worker,
                                                      const wire::LaunchSpec& spec);

// Kills the ranks that broke a limit since the last call; each one's reason
// goes into its trial's output.
void enforce_rank_limits(AgentState& state);

// Worker `worker`'s process exited (or never started): its cgroup is emptied
// and removed, its home folder removed unless a failed rank's folder is kept
// in it. Returns the limit it broke, if it broke one (what ended it, unless it exited cleanly).
std::optional<std::string> release_worker(AgentState& state, std::uint64_t worker);

// The working folder of rank `rank` of run `run_id` of trial `trial_id` in a worker's `home`.
std::filesystem::path rank_folder(const std::filesystem::path& home, std::uint64_t trial_id, std::uint32_t run_id,
                                  std::uint32_t rank);

// Removes the folders an earlier agent left (older than the keep time), and
// tells whether idle workers' clean folders may be reused (ctime_marks_every_change).
void open_work_folders(AgentState& state);

// The agent's work disk now: its free space, and why it starts no trial
// (below --min-free-disk, naming the folder, its free space and the minimum); empty refusal: it starts them.
wire::WorkDiskReport work_disk(const AgentState& state);

// Whether the master should hear of `disk` at `now_ms`: whether the agent
// starts trials changed since its last report, or 30 s passed.
bool work_disk_report_due(const AgentState& state, const wire::WorkDiskReport& disk, std::int64_t now_ms);

// The master heard of `disk` at `now_ms` (a report, or the registration).
void work_disk_reported(AgentState& state, const wire::WorkDiskReport& disk, std::int64_t now_ms);

// The rank `exit` names, run by `worker`, ended: its folder goes now, later
// when it failed, or waits for the worker's next trial when the worker idles.
void rank_folder_ended(AgentState& state, AgentState::Worker& worker, const wire::WorkerExit& exit);

}  // namespace volador::actors
