#include "runtime/sandbox/rank_cgroups.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <thread>

#include <fmt/format.h>

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kControllers = "+memory +pids";
// How long open() waits for a dead agent's leftover processes to go once killed.
constexpr auto kStaleKillPatience = std::chrono::seconds(5);

// The pid in a group's name ("volador-agent-123", "volador-agent-123-home"); nullopt for other names.
std::optional<pid_t> group_owner(const std::string& name) {
  if (!name.starts_with(kGroupPrefix)) return std::nullopt;
  pid_t pid = 0;
  const char* first = name.data() + kGroupPrefix.size();
  if (std::from_chars(first, name.data() + name.size(), pid).ec != std::errc() || pid <= 0) return std::nullopt;
  return pid;
}

bool is_running(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// The names of the folders directly below `dirs`, in either hierarchy.
std::set<std::string> child_names(const CgroupDirs& dirs) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& folder : {dirs.memory, dirs.pids})
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (entry.is_directory(ec)) names.insert(entry.path().filename().string());
  return names;
}

// Ends the group a dead agent left at `group`: its ranks' processes killed, their cgroups and the group removed.
// Waits for the killed processes to leave (kStaleKillPatience at most): the agent is starting, nothing else waits.
void end_group(const CgroupDirs& group) {
  for (const auto& name : child_names(group)) {
    const auto rank = group.child(name);
    const auto deadline = std::chrono::steady_clock::now() + kStaleKillPatience;
    while (!kill_cgroup_processes(rank) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    remove_cgroup(rank);
  }
  remove_cgroup(group);
}

void remove_stale_groups(const CgroupDirs& parent) {
  for (const auto& name : child_names(parent)) {
    const auto owner = group_owner(name);
    if (!owner || is_running(*owner)) continue;
    if (name.ends_with("-home")) remove_cgroup(parent.child(name));  // empty once its agent is gone
    else end_group(parent.child(name));
  }
}

// v2 hands a controller to a cgroup's children only when the cgroup holds no
// process itself (unless it is the root): when the agent's own cgroup refuses,
// the agent moves itself into a leaf beside its group, `<group>-home`, and asks again.
Status enable_controllers(const CgroupDirs& parent, pid_t agent) {
  const auto control = parent.memory / "cgroup.subtree_control";
  if (write_cgroup_file(control, kControllers)) return {};
  const auto home = parent.child(fmt::format("{}{}-home", kGroupPrefix, agent));
  if (auto made = create_cgroup_folders(home); !made) return made;
  if (auto moved = write_cgroup_file(home.memory / "cgroup.procs", std::to_string(agent)); !moved) return moved;
  auto enabled = write_cgroup_file(control, kControllers);
  if (!enabled)
    return fail(Error::io(enabled.error().message +
                          " (other processes share the agent's cgroup: give it a delegated one with --cgroup-parent)"));
  return {};
}

}  // namespace

RankLimits default_rank_limits(std::uint64_t host_memory_bytes, std::size_t slots) {
  return {host_memory_bytes / std::max<std::size_t>(slots, 1), kDefaultMaxProcesses};
}

std::uint64_t host_memory_bytes() {
  return static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGE_SIZE));
}

Result<RankLimits> rank_limits(const RankLimits& requested, const RankLimits& allowed) {
  if (allowed.memory_bytes != 0 && requested.memory_bytes > allowed.memory_bytes)
    return fail(Error::invalid_argument(fmt::format("resources.memory_limit: {} MiB is more than this agent allows ({} MiB)",
                                                    requested.memory_bytes >> 20, allowed.memory_bytes >> 20)));
  if (allowed.max_processes != 0 && requested.max_processes > allowed.max_processes)
    return fail(Error::invalid_argument(fmt::format("resources.max_processes: {} is more than this agent allows ({})",
                                                    requested.max_processes, allowed.max_processes)));
  return RankLimits{requested.memory_bytes != 0 ? requested.memory_bytes : allowed.memory_bytes,
                    requested.max_processes != 0 ? requested.max_processes : allowed.max_processes};
}

Result<RankCgroups> RankCgroups::open(const CgroupDirs& parent, pid_t agent) {
  remove_stale_groups(parent);
  if (parent.version == CgroupVersion::v2)
    if (auto enabled = enable_controllers(parent, agent); !enabled) return fail(enabled.error());
  const auto group = parent.child(fmt::format("{}{}", kGroupPrefix, agent));
  if (auto made = create_cgroup_folders(group); !made) return fail(made.error());
  if (group.version == CgroupVersion::v2)
    if (auto enabled = write_cgroup_file(group.memory / "cgroup.subtree_control", kControllers); !enabled)
      return fail(enabled.error());
  RankCgroups cgroups;
  cgroups.state_ = std::make_unique<State>(State{group, {}});
  return cgroups;
}

Result<std::vector<fs::path>> RankCgroups::assign(std::uint64_t worker, const RankLimits& limits) {
  if (!state_) return std::vector<fs::path>{};
  auto& ranks = state_->ranks;
  if (auto it = ranks.find(worker); it != ranks.end()) {
    if (auto applied = it->second.cgroup.apply(limits); !applied) return fail(applied.error());
    it->second.breach.reset();
    return it->second.cgroup.procs_files();
  }
  auto cgroup = RankCgroup::create(state_->group.child(fmt::format("worker-{}", worker)), limits);
  if (!cgroup) return fail(cgroup.error());
  auto files = cgroup->procs_files();
  ranks.emplace(worker, Rank{std::move(*cgroup), std::nullopt, false});
  return files;
}

std::vector<std::pair<std::uint64_t, std::string>> RankCgroups::enforce() {
  std::vector<std::pair<std::uint64_t, std::string>> broken;
  if (!state_) return broken;
  std::erase_if(state_->ranks, [](const auto& entry) {
    const auto& rank = entry.second;
    return rank.released && rank.cgroup.kill_all() && rank.cgroup.remove();
  });
  for (auto& [worker, rank] : state_->ranks) {
    if (rank.released) continue;
    if (!rank.breach && (rank.breach = rank.cgroup.breach())) broken.emplace_back(worker, *rank.breach);
    if (rank.breach) rank.cgroup.kill_all();
  }
  return broken;
}

std::optional<std::string> RankCgroups::release(std::uint64_t worker) {
  if (!state_) return std::nullopt;
  auto it = state_->ranks.find(worker);
  if (it == state_->ranks.end()) return std::nullopt;
  auto& rank = it->second;
  auto breach = rank.breach ? rank.breach : rank.cgroup.breach();
  rank.released = true;
  if (rank.cgroup.kill_all() && rank.cgroup.remove()) state_->ranks.erase(it);
  return breach;
}

void RankCgroups::close() {
  if (!state_) return;
  for (const auto& [worker, rank] : state_->ranks) {
    rank.cgroup.kill_all();
    rank.cgroup.remove();
  }
  remove_cgroup(state_->group);
  state_.reset();
}

RankCgroups& RankCgroups::operator=(RankCgroups&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}

RankCgroups::~RankCgroups() { close(); }

}  // namespace volador::sandbox
