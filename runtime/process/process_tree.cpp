#include "runtime/process/process_tree.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace volador::process {
namespace {

// How often a waiting terminate_descendants looks again.
constexpr auto kPollInterval = std::chrono::milliseconds(20);

struct ProcessStat {
  pid_t parent = 0;
  char state = '?';
};

// The parent and state of `pid` from /proc/PID/stat; nullopt when it is gone.
std::optional<ProcessStat> read_stat(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(file, text)) return std::nullopt;
  const auto name_end = text.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos || name_end + 4 >= text.size()) return std::nullopt;
  ProcessStat stat;
  stat.state = text[name_end + 2];
  const char* first = text.data() + name_end + 4;
  if (std::from_chars(first, text.data() + text.size(), stat.parent).ec != std::errc()) return std::nullopt;
  return stat;
}

using Children = std::vector<std::pair<pid_t, char>>;  // pid, state

// Whether the kernel lists each task's children in /proc (CONFIG_PROC_CHILDREN).
bool kernel_lists_children() {
  static const bool listed = std::filesystem::exists("/proc/thread-self/children");
  return listed;
}

// The children of `parent` (those of every thread) with their states, from
// /proc/PARENT/task/*/children: the tree is read, not every process of the host.
Children listed_children(pid_t parent) {
  Children children;
  const auto tasks = std::filesystem::path("/proc") / std::to_string(parent) / "task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream file(task.path() / "children");
    for (pid_t pid = 0; file >> pid;)
      if (auto stat = read_stat(pid); stat && stat->parent == parent) children.emplace_back(pid, stat->state);
  }
  return children;
}

// The children of `parent`, from a pass over every process in /proc: where the kernel lists none.
Children children_by_scan(pid_t parent) {
  Children children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const auto name = entry.path().filename().string();
    pid_t pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc()) continue;
    if (auto stat = read_stat(pid); stat && stat->parent == parent) children.emplace_back(pid, stat->state);
  }
  return children;
}

Children children(pid_t parent) { return kernel_lists_children() ? listed_children(parent) : children_by_scan(parent); }

// Whether the calling process has a child, live or a zombie, of any of its
// threads and whatever signal it sends at its exit (__WALL): one system call,
// where reading the tree opens a file per thread. True when it cannot tell.
bool has_children() {
  siginfo_t info{};
  return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 || errno != ECHILD;
}

// Reaps the zombies among this process's children, but `reaped_elsewhere`.
void reap_children(pid_t reaped_elsewhere) {
  if (!has_children()) return;
  for (const auto& [pid, state] : children(getpid()))
    if (state == 'Z' && pid != reaped_elsewhere) waitpid(pid, nullptr, WNOHANG);
}

void signal_all(const std::vector<pid_t>& pids, int signal) {
  for (pid_t pid : pids) ::kill(pid, signal);
}

// Written by the SIGTERM handler, read by the thread that ends the tree.
int sigterm_pipe[2] = {-1, -1};

void on_sigterm(int) {
  const char byte = 1;
  (void)!write(sigterm_pipe[1], &byte, 1);
}

}  // namespace

Status become_subreaper() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
    return fail(Error::io(std::string("cannot become a subreaper: ") + std::strerror(errno)));
  return {};
}

std::vector<pid_t> live_descendants(pid_t root) {
  if (root == getpid() && !has_children()) return {};  // after most commands: nothing was left
  std::vector<pid_t> found, pending{root};
  while (!pending.empty()) {
    const pid_t parent = pending.back();
    pending.pop_back();
    for (const auto& [pid, state] : children(parent)) {
      pending.push_back(pid);  // a zombie's children are still alive
      if (state != 'Z' && state != 'X') found.push_back(pid);
    }
  }
  return found;
}

void terminate_descendants(std::chrono::milliseconds grace, pid_t reaped_elsewhere) {
  const pid_t self = getpid();
  auto alive = live_descendants(self);
  signal_all(alive, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (!alive.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kPollInterval);
    reap_children(reaped_elsewhere);
    alive = live_descendants(self);
  }
  while (!alive.empty()) {  // SIGKILL until none is left, children forked meanwhile included
    signal_all(alive, SIGKILL);
    std::this_thread::sleep_for(kPollInterval);
    reap_children(reaped_elsewhere);
    alive = live_descendants(self);
  }
  reap_children(reaped_elsewhere);
}

Status end_descendants_on_sigterm(std::chrono::milliseconds grace, std::string notice) {
  if (pipe2(sigterm_pipe, O_CLOEXEC) != 0)
    return fail(Error::io(std::string("cannot watch for SIGTERM: ") + std::strerror(errno)));
  std::thread([grace, notice = std::move(notice)] {
    char byte = 0;
    while (read(sigterm_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    std::fprintf(stderr, "%s\n", notice.c_str());
    std::fflush(stderr);
    terminate_descendants(grace);
    std::_Exit(128 + SIGTERM);
  }).detach();
  struct sigaction action {};
  action.sa_handler = on_sigterm;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGTERM, &action, nullptr) != 0)
    return fail(Error::io(std::string("cannot handle SIGTERM: ") + std::strerror(errno)));
  return {};
}

}  // namespace volador::process
