#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "runtime/process/child_process.hpp"
#include "runtime/process/process_tree.hpp"

using namespace volador;
using namespace volador::process;

namespace {

// A child whose stdout lines are kept, and its exit.
struct Watched {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::promise<ProcessExit> exit;
  std::unique_ptr<ChildProcess> child;

  explicit Watched(std::vector<std::string> argv) {
    auto spawned = ChildProcess::spawn(
        {std::move(argv), {}, {}},
        [this](std::string_view, std::string line) {
          std::lock_guard lock(mutex);
          lines.push_back(std::move(line));
        },
        [this](ProcessExit e) { exit.set_value(e); });
    REQUIRE(spawned.has_value());
    child = std::move(*spawned);
  }
  // The first line it printed, once there is one.
  std::string first_line() {
    for (;;) {
      {
        std::lock_guard lock(mutex);
        if (!lines.empty()) return lines.front();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

bool contains(const std::vector<pid_t>& pids, pid_t pid) { return std::ranges::find(pids, pid) != pids.end(); }

}  // namespace

TEST_CASE("A subreaper finds and ends a descendant that left its process group and session") {
  REQUIRE(become_subreaper());
  // The escapee prints its pid only once it has its own session: killing the
  // shell's group before that would take it down too.
  Watched shell({"sh", "-c", "setsid sh -c 'echo $$; exec sleep 300' & wait"});
  const pid_t escaped = std::stoi(shell.first_line());
  CHECK(contains(live_descendants(getpid()), escaped));
  shell.child->kill(SIGKILL);  // the group: the sleep is not in it
  CHECK(shell.exit.get_future().get().signal == SIGKILL);
  REQUIRE(contains(live_descendants(getpid()), escaped));  // now this process's child
  terminate_descendants(std::chrono::seconds(30));
  CHECK_FALSE(std::filesystem::exists("/proc/" + std::to_string(escaped)));  // ended and reaped
  CHECK(live_descendants(getpid()).empty());
}

TEST_CASE("A descendant that ignores SIGTERM is killed once the grace has passed") {
  Watched stubborn({"sh", "-c", "trap '' TERM; echo ready; exec sleep 300"});
  REQUIRE(stubborn.first_line() == "ready");
  terminate_descendants(std::chrono::milliseconds(50), stubborn.child->pid());
  CHECK(stubborn.exit.get_future().get().signal == SIGKILL);
}

TEST_CASE("On SIGTERM a subreaper ends the descendants that left its session and exits") {
  int pids[2];
  REQUIRE(pipe(pids) == 0);
  const pid_t worker = fork();  // stands in for a command's worker
  REQUIRE(worker >= 0);
  if (worker == 0) {
    if (!become_subreaper()) _exit(1);
    const pid_t escaped = fork();
    if (escaped == 0) {
      setsid();
      execlp("sleep", "sleep", "300", nullptr);
      _exit(127);
    }
    if (!end_descendants_on_sigterm(std::chrono::seconds(30), "stopping")) _exit(2);
    (void)!write(pids[1], &escaped, sizeof escaped);  // only now: SIGTERM is handled
    for (;;) pause();
  }
  close(pids[1]);
  pid_t escaped = 0;
  REQUIRE(read(pids[0], &escaped, sizeof escaped) == sizeof escaped);
  close(pids[0]);
  REQUIRE(kill(worker, SIGTERM) == 0);
  int status = 0;
  REQUIRE(waitpid(worker, &status, 0) == worker);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK_FALSE(std::filesystem::exists("/proc/" + std::to_string(escaped)));  // ended and reaped by the worker
}

TEST_CASE("A process without children has no descendants") {
  CHECK(live_descendants(getpid()).empty());
  CHECK(live_descendants(999'999'999).empty());
}

TEST_CASE("A child that sends its parent no signal at its exit is a descendant too") {
  // Like fork(), without SIGCHLD at the child's exit: waitid() sees such a
  // "clone" child only when asked for every kind of child (__WALL).
  const auto quiet = static_cast<pid_t>(syscall(SYS_clone, 0, nullptr, nullptr, nullptr, nullptr));
  REQUIRE(quiet >= 0);
  if (quiet == 0) {
    pause();
    _exit(0);
  }
  CHECK(contains(live_descendants(getpid()), quiet));
  ::kill(quiet, SIGKILL);
  CHECK(waitpid(quiet, nullptr, __WALL) == quiet);
}
