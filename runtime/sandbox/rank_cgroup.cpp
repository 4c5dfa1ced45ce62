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
#include <span>
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

Status write_memory_limit(const CgroupDirs& dirs, std::uint64_t bytes) {
  const bool v1 = is_v1(dirs);
  return write_cgroup_file(dirs.memory / (v1 ? "memory.limit_in_bytes" : "memory.max"), limit_text(bytes, v1));
}

Status write_process_limit(const CgroupDirs& dirs, std::uint32_t max_processes) {
  return write_cgroup_file(dirs.pids / "pids.max", max_processes == 0 ? "max" : std::to_string(max_processes));
}

// The OOM killer off (v1: the rank waits, frozen, for its owner to end it) or
// killing the whole cgroup at once (v2), so a rank never half-survives.
Status set_oom_policy(const CgroupDirs& dirs) {
  if (is_v1(dirs)) return write_cgroup_file(dirs.memory / "memory.oom_control", "1");
  return write_cgroup_file(dirs.memory / "memory.oom.group", "1");
}

// The most a counter file holds (memory.events: a few short lines).
constexpr std::size_t kCounterFileBytes = 4096;

UniqueFd open_counter_file(const fs::path& path) { return UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)); }

// The text of the counter file `fd` now, in `buffer`: read from offset 0,
// where the kernel makes a cgroup file's text anew. Empty when it cannot be read.
std::string_view text_now(const UniqueFd& fd, std::span<char, kCounterFileBytes> buffer) {
  if (!fd) return {};
  const auto size = ::pread(fd.get(), buffer.data(), buffer.size(), 0);
  return {buffer.data(), size > 0 ? static_cast<std::size_t>(size) : 0};
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

BreachCounterFiles::BreachCounterFiles(const CgroupDirs& dirs)
    : memory_(open_counter_file(is_v1(dirs) ? dirs.memory / "memory.oom_control" : dirs.memory / "memory.events")),
      pids_(open_counter_file(dirs.pids / "pids.events")) {}

BreachCounters BreachCounterFiles::read() const {
  char memory_buffer[kCounterFileBytes];
  char pids_buffer[kCounterFileBytes];
  const auto memory = text_now(memory_, memory_buffer);
  return {cgroup_counter(memory, "oom_kill").value_or(0), cgroup_counter(text_now(pids_, pids_buffer), "max").value_or(0),
          cgroup_counter(memory, "under_oom") == 1};
}

BreachCounters read_breach_counters(const CgroupDirs& dirs) { return BreachCounterFiles(dirs).read(); }

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

std::optional<std::uint64_t> cgroup_counter(std::string_view text, std::string_view key) {
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
  if (auto policy = set_oom_policy(dirs); !policy) return fail(policy.error());
  if (auto written = write_memory_limit(dirs, limits.memory_bytes); !written) return fail(written.error());
  if (auto written = write_process_limit(dirs, limits.max_processes); !written) return fail(written.error());
  return RankCgroup(std::move(dirs), limits);
}

Status RankCgroup::apply(const RankLimits& limits) {
  if (limits.memory_bytes != limits_.memory_bytes) {
    if (auto written = write_memory_limit(dirs_, limits.memory_bytes); !written) return written;
    limits_.memory_bytes = limits.memory_bytes;
  }
  if (limits.max_processes != limits_.max_processes) {
    if (auto written = write_process_limit(dirs_, limits.max_processes); !written) return written;
    limits_.max_processes = limits.max_processes;
  }
  applied_at_ = counters_.read();
  return {};
}

std::vector<fs::path> RankCgroup::procs_files() const {
  std::vector<fs::path> files;
  for (const auto& folder : folders(dirs_)) files.push_back(folder / "cgroup.procs");
  return files;
}

std::optional<std::string> RankCgroup::breach() const {
  const auto now = counters_.read();
  if (limits_.memory_bytes > 0 && now.under_oom) return memory_breach(limits_);
  return breach_between(limits_, applied_at_, now);
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
