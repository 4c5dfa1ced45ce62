#include "runtime/sandbox/rank_cgroup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

// How many rounds of SIGKILL kill_all sends before it lets its caller come back:
// a process may fork between reading cgroup.procs and the signal.
constexpr int kKillRounds = 8;

bool is_v1(const CgroupDirs& dirs) { return dirs.version == CgroupVersion::v1; }

// The cgroup's folders, each once (v2 names one folder twice).
std::vector<fs::path> folders(const CgroupDirs& dirs) {
  if (is_v1(dirs)) return {dirs.memory, dirs.pids};
  return {dirs.memory};
}

std::string limit_text(std::uint64_t value, bool v1) {
  if (value == 0) return v1 ? "-1" : "max";
  return std::to_string(value);
}

Status write_limits(const CgroupDirs& dirs, const RankLimits& limits) {
  const bool v1 = is_v1(dirs);
  const auto memory_file = dirs.memory / (v1 ? "memory.limit_in_bytes" : "memory.max");
  if (auto written = write_cgroup_file(memory_file, limit_text(limits.memory_bytes, v1)); !written) return written;
  if (limits.max_processes == 0) return write_cgroup_file(dirs.pids / "pids.max", "max");
  return write_cgroup_file(dirs.pids / "pids.max", std::to_string(limits.max_processes));
}

// The OOM killer off (v1: the rank waits, frozen, for its owner to end it) or
// killing the whole cgroup at once (v2), so a rank never half-survives.
Status set_oom_policy(const CgroupDirs& dirs) {
  if (is_v1(dirs)) return write_cgroup_file(dirs.memory / "memory.oom_control", "1");
  return write_cgroup_file(dirs.memory / "memory.oom.group", "1");
}

std::set<int> live_members(const CgroupDirs& dirs) {
  std::set<int> pids;
  for (const auto& folder : folders(dirs))
    for (int pid : read_cgroup_procs(folder / "cgroup.procs")) pids.insert(pid);
  return pids;
}

}  // namespace

std::string memory_breach(const RankLimits& limits) {
  return fmt::format("killed: memory limit {} MiB", limits.memory_bytes >> 20);
}

std::string process_breach(const RankLimits& limits) {
  return fmt::format("killed: process limit {}", limits.max_processes);
}

BreachCounters read_breach_counters(const CgroupDirs& dirs) {
  const auto oom_file = is_v1(dirs) ? dirs.memory / "memory.oom_control" : dirs.memory / "memory.events";
  return {read_cgroup_counter(oom_file, "oom_kill").value_or(0),
          read_cgroup_counter(dirs.pids / "pids.events", "max").value_or(0)};
}

std::optional<std::string> breach_between(const RankLimits& limits, const BreachCounters& before,
                                          const BreachCounters& now) {
  if (limits.memory_bytes > 0 && now.oom_kills > before.oom_kills) return memory_breach(limits);
  if (limits.max_processes > 0 && now.refused_forks > before.refused_forks) return process_breach(limits);
  return std::nullopt;
}

Status write_cgroup_file(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fail(Error::io(fmt::format("cannot open {}: {}", path.string(), std::strerror(errno))));
  const auto written = ::write(fd, text.data(), text.size());
  const int error = errno;
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size()))
    return fail(Error::io(fmt::format("cannot write '{}' to {}: {}", text, path.string(), std::strerror(error))));
  return {};
}

std::optional<std::uint64_t> read_cgroup_counter(const fs::path& path, const std::string& key) {
  // read(2) and no stream: the agent reads these per trial and at every flush, for every worker.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[4096];
  const auto size = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  std::string_view text(buffer, size > 0 ? static_cast<std::size_t>(size) : 0);
  while (!text.empty()) {
    const auto end = std::min(text.find('\n'), text.size());
    const auto line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    const auto space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space) != key) continue;
    std::uint64_t value = 0;
    const auto digits = line.substr(space + 1);
    if (std::from_chars(digits.data(), digits.data() + digits.size(), value).ec != std::errc()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

std::vector<int> read_cgroup_procs(const fs::path& path) {
  std::ifstream file(path);
  std::vector<int> pids;
  for (int pid = 0; file >> pid;) pids.push_back(pid);
  return pids;
}

Result<RankCgroup> RankCgroup::create(CgroupDirs dirs, const RankLimits& limits) {
  if (auto made = create_cgroup_folders(dirs); !made) return fail(made.error());
  RankCgroup cgroup(std::move(dirs));
  if (auto policy = set_oom_policy(cgroup.dirs_); !policy) return fail(policy.error());
  if (auto applied = cgroup.apply(limits); !applied) return fail(applied.error());
  return cgroup;
}

Status RankCgroup::apply(const RankLimits& limits) {
  if (auto written = write_limits(dirs_, limits); !written) return written;
  limits_ = limits;
  applied_at_ = read_breach_counters(dirs_);
  return {};
}

std::vector<fs::path> RankCgroup::procs_files() const {
  std::vector<fs::path> files;
  for (const auto& folder : folders(dirs_)) files.push_back(folder / "cgroup.procs");
  return files;
}

std::optional<std::string> RankCgroup::breach() const {
  const bool frozen = is_v1(dirs_) && read_cgroup_counter(dirs_.memory / "memory.oom_control", "under_oom") == 1;
  if (limits_.memory_bytes > 0 && frozen) return memory_breach(limits_);
  return breach_between(limits_, applied_at_, read_breach_counters(dirs_));
}

bool RankCgroup::kill_all() const { return kill_cgroup_processes(dirs_); }

bool RankCgroup::remove() const { return remove_cgroup(dirs_); }

bool kill_cgroup_processes(const CgroupDirs& dirs) {
  if (!is_v1(dirs) && fs::exists(dirs.memory / "cgroup.kill")) (void)write_cgroup_file(dirs.memory / "cgroup.kill", "1");
  for (int round = 0; round < kKillRounds; ++round) {
    const auto pids = live_members(dirs);
    if (pids.empty()) return true;
    for (int pid : pids) ::kill(pid, SIGKILL);
  }
  return live_members(dirs).empty();
}

Status create_cgroup_folders(const CgroupDirs& dirs) {
  for (const auto& folder : folders(dirs))
    if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST)
      return fail(Error::io(fmt::format("cannot create the cgroup {}: {}", folder.string(), std::strerror(errno))));
  return {};
}

bool remove_cgroup(const CgroupDirs& dirs) {
  bool removed = true;
  for (const auto& folder : folders(dirs))
    if (::rmdir(folder.c_str()) != 0 && errno != ENOENT) removed = false;
  return removed;
}

}  // namespace volador::sandbox
