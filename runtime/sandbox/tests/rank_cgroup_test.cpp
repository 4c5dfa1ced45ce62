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
  FakeCgroup2 fake;
  CHECK(read_cgroup_counter(fake.dir / "memory.events", "oom_kill") == 0);
  CHECK_FALSE(read_cgroup_counter(fake.dir / "memory.events", "nothing"));
  CHECK_FALSE(read_cgroup_counter(fake.dir / "missing", "max"));
  std::ofstream(fake.dir / "memory.events", std::ios::trunc) << "low 0\nhigh 0\nmax 3\noom 2\noom_kill 7\noom_group_kill 1";
  CHECK(read_cgroup_counter(fake.dir / "memory.events", "oom_kill") == 7);
  CHECK(read_cgroup_counter(fake.dir / "memory.events", "oom") == 2);
  CHECK(read_cgroup_counter(fake.dir / "memory.events", "oom_group_kill") == 1);  // the last line, unended
  CHECK_FALSE(read_cgroup_counter(fake.dir / "memory.events", "oom_group"));
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
