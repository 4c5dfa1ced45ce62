// Real cgroups on this host (root, memory and pids controllers mounted):
// ranks over their limits are found and ended whole. Where the host offers
// no usable cgroups the cases say so and check nothing else.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <thread>

#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/rank_cgroups.hpp"

using namespace volador;
using namespace volador::sandbox;
namespace fs = std::filesystem;

namespace {

// The host's cgroups, for a parent of the test's own below this process's cgroup; nullopt where unusable.
std::optional<CgroupDirs> test_parent() {
  if (geteuid() != 0) return std::nullopt;
  auto own = own_cgroup("");
  if (!own || own->version != CgroupVersion::v1) return std::nullopt;  // v2 needs its controllers delegated first
  auto parent = own->child("volador-limits-test-" + std::to_string(getpid()));
  if (!create_cgroup_folders(parent)) return std::nullopt;
  return parent;
}

// A process in worker `worker`'s cgroup; its exit is kept.
struct Rank {
  std::promise<process::ProcessExit> exit;
  std::unique_ptr<process::ChildProcess> child;
  Rank(std::vector<std::string> argv, std::vector<fs::path> join) {
    process::ProcessSpec spec{std::move(argv), {}, {}};
    spec.join_cgroups = std::move(join);
    auto spawned = process::ChildProcess::spawn(spec, [](std::string_view, std::string) {},
                                                [this](process::ProcessExit e) { exit.set_value(e); });
    REQUIRE(spawned);
    child = std::move(*spawned);
  }
};

// enforce() until it reports a breach (or 30 s of nothing, which fails the case).
std::vector<std::pair<std::uint64_t, std::string>> await_breach(RankCgroups& cgroups) {
  for (int i = 0; i < 1500; ++i) {
    auto broken = cgroups.enforce();
    if (!broken.empty()) return broken;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

// enforce() until `folder` is gone (released cgroups whose processes linger), 30 s at most.
bool await_removed(RankCgroups& cgroups, const fs::path& folder) {
  for (int i = 0; i < 1500 && fs::exists(folder); ++i) {
    cgroups.enforce();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !fs::exists(folder);
}

// A fork bomb in worker `worker`'s cgroup (bounded: 200 sleeps at most,
// whatever the limit does), which `cgroups` must end with its process limit
// of 16 as the reason, and then remove the worker's cgroup.
void expect_fork_bomb_ended(RankCgroups& cgroups, std::uint64_t worker, const std::vector<fs::path>& join) {
  Rank bomb({"sh", "-c", "i=0; while [ $i -lt 200 ]; do sleep 300 & i=$((i+1)); done; wait"}, join);
  const auto broken = await_breach(cgroups);
  REQUIRE(broken.size() == 1);
  CHECK(broken[0] == std::pair<std::uint64_t, std::string>{worker, "killed: process limit 16"});
  bomb.exit.get_future().get();  // killed, or ended by a refused fork just before
  CHECK(cgroups.release(worker) == "killed: process limit 16");
  CHECK(await_removed(cgroups, join.front().parent_path()));  // every sleep gone: a cgroup with processes stays
}

#define REQUIRE_CGROUPS(parent)                                         \
  auto parent = test_parent();                                          \
  if (!parent) {                                                        \
    WARN("no cgroup v1 memory and pids controllers to use as root here"); \
    return;                                                             \
  }                                                                     \
  struct RemoveParent {                                                 \
    CgroupDirs dirs;                                                    \
    ~RemoveParent() { remove_cgroup(dirs); }                            \
  } remove_parent{*parent}

}  // namespace

TEST_CASE("A rank over its memory limit is ended whole with the limit as the reason") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto join = cgroups->assign(1, {64ull << 20, 64});
  REQUIRE(join);
  Rank hog({"sh", "-c", "sleep 300 & head -c 300m /dev/zero | tail; wait"}, *join);
  const auto broken = await_breach(*cgroups);
  REQUIRE(broken.size() == 1);
  CHECK(broken[0] == std::pair<std::uint64_t, std::string>{1, "killed: memory limit 64 MiB"});
  CHECK(hog.exit.get_future().get().signal == SIGKILL);
  CHECK(cgroups->release(1) == "killed: memory limit 64 MiB");
  CHECK(await_removed(*cgroups, join->front().parent_path()));
}

TEST_CASE("A fork bomb under a process limit is ended whole with the limit as the reason") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto join = cgroups->assign(2, {256ull << 20, 16});
  REQUIRE(join);
  expect_fork_bomb_ended(*cgroups, 2, *join);
}

TEST_CASE("A rank within its limits breaks none, and its cgroup goes when it is released") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto join = cgroups->assign(3, {64ull << 20, 16});
  REQUIRE(join);
  Rank quiet({"sh", "-c", "head -c 1m /dev/zero | wc -c; setsid sleep 300 >/dev/null 2>&1 &"}, *join);
  CHECK(quiet.exit.get_future().get().exit_code == 0);
  CHECK(cgroups->enforce().empty());
  CHECK_FALSE(cgroups->release(3));  // the detached sleep is still in it: killed
  CHECK(await_removed(*cgroups, join->front().parent_path()));
}

TEST_CASE("A rank that broke its process limit and exited before enforce() looked is released with the limit as the reason") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto join = cgroups->assign(5, {256ull << 20, 8});
  REQUIRE(join);
  Rank bomb({"sh", "-c", "i=0; while [ $i -lt 20 ]; do sleep 300 & i=$((i+1)); done; exit 3"}, *join);
  bomb.exit.get_future().get();  // no enforce() meanwhile
  CHECK(cgroups->release(5) == "killed: process limit 8");
  CHECK(await_removed(*cgroups, join->front().parent_path()));
}

TEST_CASE("A warm worker's cgroup takes the limits of its next trial") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto first = cgroups->assign(4, {64ull << 20, 16});
  REQUIRE(first);
  auto second = cgroups->assign(4, {128ull << 20, 32});
  REQUIRE(second);
  CHECK(*first == *second);
  std::ifstream memory(parent->memory / fs::path("volador-agent-" + std::to_string(getpid())) / "worker-4" /
                       "memory.limit_in_bytes");
  std::uint64_t limit = 0;
  memory >> limit;
  CHECK(limit == 128ull << 20);
}

TEST_CASE("A warm worker's next trial under the same limits that breaks one is ended with the limit as the reason") {
  REQUIRE_CGROUPS(parent);
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  auto join = cgroups->assign(6, {256ull << 20, 16});
  REQUIRE(join);
  Rank first({"sh", "-c", "sleep 0.1 & wait"}, *join);
  CHECK(first.exit.get_future().get().exit_code == 0);
  CHECK(cgroups->enforce().empty());
  REQUIRE(cgroups->assign(6, {256ull << 20, 16}));  // the limits in force stay: nothing written
  expect_fork_bomb_ended(*cgroups, 6, *join);
}

TEST_CASE("The groups of agents no longer running are ended at open: processes killed, folders removed") {
  REQUIRE_CGROUPS(parent);
  const pid_t gone = fork();  // a pid no agent runs as once reaped
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const auto stale = parent->child("volador-agent-" + std::to_string(gone));
  REQUIRE(create_cgroup_folders(stale));
  REQUIRE(create_cgroup_folders(stale.child("worker-1")));
  Rank leftover({"sleep", "300"}, {stale.child("worker-1").memory / "cgroup.procs", stale.child("worker-1").pids / "cgroup.procs"});
  auto cgroups = RankCgroups::open(*parent, getpid());
  REQUIRE(cgroups);
  CHECK(leftover.exit.get_future().get().signal == SIGKILL);
  CHECK_FALSE(fs::exists(stale.memory));
  CHECK_FALSE(fs::exists(stale.pids));
}

TEST_CASE("A trial asking for no limit gets the agent's and more than it allows is refused naming the field") {
  const RankLimits allowed{1ull << 30, 4096};
  CHECK(rank_limits({}, allowed) == allowed);
  CHECK(rank_limits({64ull << 20, 64}, allowed) == RankLimits{64ull << 20, 64});
  auto memory = rank_limits({2ull << 30, 0}, allowed);
  REQUIRE_FALSE(memory);
  CHECK(memory.error().message == "resources.memory_limit: 2048 MiB is more than this agent allows (1024 MiB)");
  auto processes = rank_limits({0, 5000}, allowed);
  REQUIRE_FALSE(processes);
  CHECK(processes.error().message == "resources.max_processes: 5000 is more than this agent allows (4096)");
  CHECK(rank_limits({8ull << 30, 100000}, {}) == RankLimits{8ull << 30, 100000});  // an agent without limits
}

TEST_CASE("By default a rank gets the host's memory shared by the slots and kDefaultMaxProcesses") {
  CHECK(default_rank_limits(16ull << 30, 4) == RankLimits{4ull << 30, kDefaultMaxProcesses});
  CHECK(default_rank_limits(16ull << 30, 0).memory_bytes == 16ull << 30);
}
