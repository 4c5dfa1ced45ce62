// RankCgroup's (and RankCgroups') file writes and reads on cgroup v2, against a folder laid out
// like cgroupfs (this host's memory and pids controllers are v1, so no real
// cgroup2 can carry them here); rank_cgroups_test.cpp runs real cgroups.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "runtime/sandbox/rank_cgroup.hpp"
#include "runtime/sandbox/rank_cgroups.hpp"

using namespace volador::sandbox;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Makes `dir` hold what the kernel puts in a fresh cgroup2 cgroup, of the files Volador uses.
void fill_cgroup2(const fs::path& dir) {
  fs::create_directories(dir);
  for (const char* name : {"memory.max", "pids.max", "memory.oom.group", "cgroup.procs", "cgroup.subtree_control"})
    std::ofstream(dir / name) << "";
  std::ofstream(dir / "memory.events") << "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n";
  std::ofstream(dir / "pids.events") << "max 0\n";
}

// A folder laid out as a fresh cgroup2 cgroup.
struct FakeCgroup2 {
  fs::path dir = fs::temp_directory_path() / ("volador-fake-cgroup2-" + std::to_string(getpid()));
  FakeCgroup2() { fill_cgroup2(dir); }
  ~FakeCgroup2() { fs::remove_all(dir); }
  [[nodiscard]] CgroupDirs dirs() const { return {CgroupVersion::v2, dir, dir}; }
};

}  // namespace

TEST_CASE("cgroup v2: a rank's limits go to memory.max and pids.max, the OOM killer takes the whole group") {
  FakeCgroup2 fake;
  auto cgroup = RankCgroup::create(fake.dirs(), {64ull << 20, 64});
  REQUIRE(cgroup);
  CHECK(read_text(fake.dir / "memory.max") == std::to_string(64ull << 20));
  CHECK(read_text(fake.dir / "pids.max") == "64");
  CHECK(read_text(fake.dir / "memory.oom.group") == "1");
  CHECK(cgroup->procs_files() == std::vector<fs::path>{fake.dir / "cgroup.procs"});
  CHECK_FALSE(cgroup->breach());
}

TEST_CASE("cgroup v2: a limit left at 0 is written as max") {
  FakeCgroup2 fake;
  REQUIRE(RankCgroup::create(fake.dirs(), {}));
  CHECK(read_text(fake.dir / "memory.max") == "max");
  CHECK(read_text(fake.dir / "pids.max") == "max");
}

TEST_CASE("cgroup v2: an OOM kill or a refused fork after the limits were applied is a breach naming the limit") {
  FakeCgroup2 fake;
  std::ofstream(fake.dir / "memory.events") << "oom 2\noom_kill 2\n";  // an earlier trial's, before these limits
  auto cgroup = RankCgroup::create(fake.dirs(), {96ull << 20, 32});
  REQUIRE(cgroup);
  CHECK_FALSE(cgroup->breach());
  std::ofstream(fake.dir / "pids.events") << "max 5\n";
  CHECK(cgroup->breach() == "killed: process limit 32");
  std::ofstream(fake.dir / "memory.events") << "oom 3\noom_kill 3\n";
  CHECK(cgroup->breach() == "killed: memory limit 96 MiB");  // memory first: an OOM may also refuse forks
}

TEST_CASE("cgroup v2: new limits for a warm worker's next trial count breaches from then") {
  FakeCgroup2 fake;
  auto cgroup = RankCgroup::create(fake.dirs(), {64ull << 20, 64});
  REQUIRE(cgroup);
  std::ofstream(fake.dir / "pids.events") << "max 1\n";
  REQUIRE(cgroup->breach());
  REQUIRE(cgroup->apply({128ull << 20, 100}));
  CHECK(read_text(fake.dir / "memory.max") == std::to_string(128ull << 20));
  CHECK(read_text(fake.dir / "pids.max") == "100");
  CHECK_FALSE(cgroup->breach());
}

TEST_CASE("kill_all sends SIGKILL to every process cgroup.procs lists") {
  FakeCgroup2 fake;
  const pid_t sleeper = fork();
  if (sleeper == 0) {
    execlp("sleep", "sleep", "300", nullptr);
    _exit(127);
  }
  std::ofstream(fake.dir / "cgroup.procs") << sleeper << "\n";
  CHECK_FALSE(kill_cgroup_processes(fake.dirs()));  // the fake file still lists it: a real one would not
  int status = 0;
  REQUIRE(waitpid(sleeper, &status, 0) == sleeper);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
}

TEST_CASE("A limit file that cannot be written is an error naming it") {
  FakeCgroup2 fake;
  fs::remove(fake.dir / "pids.max");
  auto cgroup = RankCgroup::create(fake.dirs(), {64ull << 20, 64});
  REQUIRE_FALSE(cgroup);
  CHECK(cgroup.error().message.find((fake.dir / "pids.max").string()) != std::string::npos);
}

TEST_CASE("Flat keyed cgroup files: a counter by its key") {
  const std::string_view events = "low 0\nhigh 0\nmax 3\noom 2\noom_kill 7\noom_group_kill 1";
  CHECK(cgroup_counter(events, "oom_kill") == 7);
  CHECK(cgroup_counter(events, "oom") == 2);
  CHECK(cgroup_counter(events, "oom_group_kill") == 1);  // the last line, unended
  CHECK_FALSE(cgroup_counter(events, "oom_group"));
  CHECK_FALSE(cgroup_counter(events, "nothing"));
  CHECK_FALSE(cgroup_counter("", "max"));
  CHECK_FALSE(cgroup_counter("max many\n", "max"));
}

TEST_CASE("Breach counters: read again from the files opened once, a missing file reads as 0s") {
  FakeCgroup2 fake;
  const BreachCounterFiles files(fake.dirs());
  CHECK(files.read().oom_kills == 0);
  std::ofstream(fake.dir / "memory.events", std::ios::trunc) << "oom 2\noom_kill 2\n";
  std::ofstream(fake.dir / "pids.events", std::ios::trunc) << "max 12\n";
  CHECK(files.read().oom_kills == 2);
  CHECK(files.read().refused_forks == 12);
  CHECK_FALSE(files.read().under_oom);  // v2 has no such count
  fs::remove(fake.dir / "pids.events");
  CHECK(read_breach_counters(fake.dirs()).refused_forks == 0);
  CHECK(read_breach_counters(fake.dirs()).oom_kills == 2);
}

TEST_CASE("A warm worker's next trial writes only the limits that changed") {
  FakeCgroup2 fake;
  auto cgroup = RankCgroup::create(fake.dirs(), {64ull << 20, 64});
  REQUIRE(cgroup);
  const auto clear_limit_files = [&] {  // what is written next is all they hold
    for (const char* name : {"memory.max", "pids.max"}) std::ofstream(fake.dir / name, std::ios::trunc) << "";
  };
  clear_limit_files();
  REQUIRE(cgroup->apply({64ull << 20, 64}));
  CHECK(read_text(fake.dir / "memory.max").empty());
  CHECK(read_text(fake.dir / "pids.max").empty());
  REQUIRE(cgroup->apply({64ull << 20, 100}));
  CHECK(read_text(fake.dir / "memory.max").empty());
  CHECK(read_text(fake.dir / "pids.max") == "100");
  clear_limit_files();
  REQUIRE(cgroup->apply({128ull << 20, 100}));
  CHECK(read_text(fake.dir / "memory.max") == std::to_string(128ull << 20));
  CHECK(read_text(fake.dir / "pids.max").empty());
  clear_limit_files();
  REQUIRE(cgroup->apply({}));
  CHECK(read_text(fake.dir / "memory.max") == "max");
  CHECK(read_text(fake.dir / "pids.max") == "max");
}

TEST_CASE("A limit that could not be written is written again by the next trial asking for it") {
  FakeCgroup2 fake;
  auto cgroup = RankCgroup::create(fake.dirs(), {64ull << 20, 64});
  REQUIRE(cgroup);
  fs::remove(fake.dir / "pids.max");
  CHECK_FALSE(cgroup->apply({128ull << 20, 100}));  // memory written, pids not
  std::ofstream(fake.dir / "pids.max") << "";
  REQUIRE(cgroup->apply({128ull << 20, 100}));
  CHECK(read_text(fake.dir / "memory.max") == std::to_string(128ull << 20));
  CHECK(read_text(fake.dir / "pids.max") == "100");
  CHECK(cgroup->limits() == RankLimits{128ull << 20, 100});
}

TEST_CASE("cgroup v1: a rank frozen at its memory limit (under_oom) is a breach, with the OOM killer off") {
  FakeCgroup2 memory;  // v1's two hierarchies, laid out as the kernel makes a cgroup in each
  const auto pids = memory.dir.string() + "-pids";
  fs::create_directories(pids);
  for (const char* name : {"memory.limit_in_bytes", "memory.oom_control"}) std::ofstream(memory.dir / name) << "";
  std::ofstream(fs::path(pids) / "pids.max") << "";
  std::ofstream(fs::path(pids) / "pids.events") << "max 0\n";
  const CgroupDirs dirs{CgroupVersion::v1, memory.dir, pids};
  auto cgroup = RankCgroup::create(dirs, {64ull << 20, 64});
  REQUIRE(cgroup);
  CHECK(read_text(memory.dir / "memory.oom_control") == "1");
  std::ofstream(memory.dir / "memory.oom_control", std::ios::trunc) << "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n";
  CHECK_FALSE(cgroup->breach());
  std::ofstream(memory.dir / "memory.oom_control", std::ios::trunc) << "oom_kill_disable 1\nunder_oom 1\noom_kill 0\n";
  CHECK(read_breach_counters(dirs).under_oom);
  CHECK(cgroup->breach() == "killed: memory limit 64 MiB");
  fs::remove_all(pids);
}

TEST_CASE("cgroup v2: a rank the kernel's group OOM kill ended before enforce() looked is released with the memory limit as the reason") {
  FakeCgroup2 parent;  // the agent's own cgroup; its group and the worker's cgroup laid out as the kernel makes them
  const auto group = parent.dir / ("volador-agent-" + std::to_string(getpid()));
  fill_cgroup2(group);
  fill_cgroup2(group / "worker-1");
  auto cgroups = RankCgroups::open(parent.dirs(), getpid());
  REQUIRE(cgroups);
  REQUIRE(cgroups->assign(1, {64ull << 20, 64}));
  std::ofstream(group / "worker-1" / "memory.events") << "oom 1\noom_kill 1\noom_group_kill 1\n";
  CHECK(cgroups->release(1) == "killed: memory limit 64 MiB");
}
