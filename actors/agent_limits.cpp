#include "actors/agent_limits.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "actors/worker_sandbox.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/worker/command_scratch.hpp"

namespace volador::actors {
namespace {

// How often the agent tells the master its free work disk while whether it starts trials does not change.
constexpr std::chrono::milliseconds kWorkDiskReportInterval = std::chrono::seconds(30);

}  // namespace

void open_rank_limits(AgentState& state) {
  auto& options = state.options.limits;
  const auto& agent = state.options.agent_id;
  if (!options.enabled) {
    spdlog::warn("agent {}: trials run without memory and process limits (--no-trial-limits)", agent);
    return;
  }
  const auto defaults = sandbox::default_rank_limits(sandbox::host_memory_bytes(), state.options.slots.size());
  if (options.allowed.memory_bytes == 0) options.allowed.memory_bytes = defaults.memory_bytes;
  if (options.allowed.max_processes == 0) options.allowed.max_processes = defaults.max_processes;
  auto parent = sandbox::own_cgroup(options.cgroup_parent);
  auto cgroups = parent ? sandbox::RankCgroups::open(*parent, getpid()) : fail(parent.error());
  if (!cgroups) {
    spdlog::warn("agent {}: trials run without memory and process limits: {}", agent, cgroups.error().message);
    return;
  }
  state.cgroups = std::move(*cgroups);
  spdlog::info("agent {}: each rank runs in a cgroup ({} under {}): {} MiB of memory and {} processes at most", agent,
               parent->version == sandbox::CgroupVersion::v1 ? "v1" : "v2", parent->memory.string(),
               options.allowed.memory_bytes >> 20, options.allowed.max_processes);
}

void describe_rank_limits(const AgentState& state, wire::AgentInfo& info) {
  if (!state.cgroups.active()) return;
  info.memory_limit_bytes = state.options.limits.allowed.memory_bytes;
  info.max_processes = state.options.limits.allowed.max_processes;
}

Result<sandbox::RankLimits> resolved_rank_limits(const AgentState& state, const wire::LaunchSpec& spec) {
  if (!state.cgroups.active() && (spec.memory_limit_bytes != 0 || spec.max_processes != 0))
    return fail(Error::invalid_argument(fmt::format(
        "{}: agent {} runs its ranks without limits (--no-trial-limits, or no usable cgroups: see its log), so it "
        "cannot hold this rank to one",
        spec.memory_limit_bytes != 0 ? "resources.memory_limit" : "resources.max_processes", state.options.agent_id)));
  if (!state.cgroups.active()) return sandbox::RankLimits{};
  return sandbox::rank_limits({spec.memory_limit_bytes, spec.max_processes}, state.options.limits.allowed);
}

Result<std::vector<std::filesystem::path>> limit_rank(AgentState& state, std::uint64_t worker,
                                                      const wire::LaunchSpec& spec) {
  auto limits = resolved_rank_limits(state, spec);
  if (!limits) return fail(limits.error());
  return state.cgroups.assign(worker, *limits);
}

void enforce_rank_limits(AgentState& state) {
  for (const auto& [id, why] : state.cgroups.enforce()) {
    auto worker = std::ranges::find_if(state.workers, [id](const auto& entry) {
      return entry.second.id == id && entry.second.process;  // not an ended rank of a warm worker, still shipping
    });
    if (worker == state.workers.end()) continue;  // an idle worker: its exit is ignored
    spdlog::warn("trial {} run {} rank {}: {}", std::get<0>(worker->first), std::get<1>(worker->first),
                 std::get<2>(worker->first), why);
    worker->second.output->add("stderr", "volador-agent: " + why);
  }
}

std::optional<std::string> release_worker(AgentState& state, std::uint64_t worker) {
  auto why = state.cgroups.release(worker);
  state.work_folders.worker_ended(worker);
  std::error_code ec;
  std::filesystem::remove(worker_home(state.options, worker), ec);  // only when empty
  return why;
}

std::filesystem::path rank_folder(const std::filesystem::path& home, std::uint64_t trial_id, std::uint32_t run_id,
                                  std::uint32_t rank) {
  return home / fmt::format("trial-{}-run-{}-rank-{}", trial_id, run_id, rank);
}

void open_work_folders(AgentState& state) {
  auto options = state.options.work_folders;
  options.reuse_clean = sandbox::ctime_marks_every_change(state.options.work_dir);
  options.worker_scratch = worker::command_scratch_names();
  if (!options.reuse_clean)
    spdlog::info("agent {}: each trial gets a working folder made afresh: the file system of {} may not mark every "
                 "change of a file (no multigrain timestamps), so an untouched folder cannot be told",
                 state.options.agent_id, state.options.work_dir.string());
  state.work_folders = sandbox::WorkFolders(options);
  state.work_folders.reap_left_over(state.options.work_dir);
}

wire::WorkDiskReport work_disk(const AgentState& state) {
  const auto free = sandbox::free_disk_bytes(state.options.work_dir);  // one statvfs per check: one per launch
  const auto refusal = state.work_folders.refusal(state.options.work_dir, free);
  return {state.options.agent_id, free.value_or(0),
          refusal ? fmt::format("agent {}: {}", state.options.agent_id, *refusal) : std::string()};
}

bool work_disk_report_due(const AgentState& state, const wire::WorkDiskReport& disk, std::int64_t now_ms) {
  const auto& last = state.work_disk_reported;
  return last.refusing != !disk.refusal.empty() || now_ms - last.at_ms >= kWorkDiskReportInterval.count();
}

void work_disk_reported(AgentState& state, const wire::WorkDiskReport& disk, std::int64_t now_ms) {
  state.work_disk_reported = {!disk.refusal.empty(), now_ms};
}

void rank_folder_ended(AgentState& state, AgentState::Worker& worker, const wire::WorkerExit& exit) {
  const bool failed = exit.exit_code != 0 || exit.signal != 0;
  auto folder = std::exchange(worker.folder, std::nullopt);
  if (!folder) return;
  if (!failed && state.idle_processes.contains(worker.id)) return state.work_folders.keep_for_next(worker.id, std::move(*folder));
  state.work_folders.rank_ended(folder->path, failed, system_now_ms());
}

}  // namespace volador::actors
