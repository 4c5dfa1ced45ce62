#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "runtime/worker/container_limits.hpp"

using namespace volador::worker;
namespace fs = std::filesystem;

namespace {

// A folder standing for a container's /sys/fs/cgroup, removed at the end.
struct CgroupRoot {
  inline static int made = 0;
  fs::path path = fs::temp_directory_path() /
                  ("volador-container-limits-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  CgroupRoot() { fs::create_directories(path); }
  ~CgroupRoot() { fs::remove_all(path); }
  void write(const fs::path& file, const std::string& text) const {
    fs::create_directories((path / file).parent_path());
    std::ofstream(path / file) << text;
  }
  // cgroup v1's counts: `oom_kills` in memory/memory.oom_control, `refused_forks` in pids/pids.events.
  void write_v1(int oom_kills, int refused_forks) const {
    write("memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill " + std::to_string(oom_kills) + "\n");
    write("pids/pids.events", "max " + std::to_string(refused_forks) + "\n");
  }
  // cgroup v2's: memory.events and pids.events in the root.
  void write_v2(int oom_kills, int refused_forks) const {
    write("memory.events", "low 0\nhigh 0\nmax 7\noom 1\noom_kill " + std::to_string(oom_kills) + "\noom_group_kill 0\n");
    write("pids.events", "max " + std::to_string(refused_forks) + "\n");
  }
};

// Checks that a watch of both limits over `root` starts from `oom_kills` and `refused_forks`.
void check_counts_from(const fs::path& root, std::uint64_t oom_kills, std::uint64_t refused_forks) {
  const auto watch = watch_container_limits("67108864", "64", root);
  REQUIRE(watch);
  CHECK(watch->before.oom_kills == oom_kills);
  CHECK(watch->before.refused_forks == refused_forks);
}

}  // namespace

TEST_CASE("The container's counts are read from cgroup v1's memory and pids folders, else v2's root") {
  CgroupRoot v1;
  v1.write_v1(2, 5);
  check_counts_from(v1.path, 2, 5);
  CgroupRoot v2;
  v2.write_v2(1, 3);
  check_counts_from(v2.path, 1, 3);
  CgroupRoot empty;
  check_counts_from(empty.path / "missing", 0, 0);  // unreadable: nothing counted
}

TEST_CASE("A kill at the container's memory limit since the command started is told with the limit") {
  CgroupRoot root;
  root.write_v1(1, 0);
  const auto watch = watch_container_limits("67108864", nullptr, root.path);
  REQUIRE(watch);
  CHECK_FALSE(container_limit_breach(*watch));  // an earlier kill is not this command's
  root.write_v1(2, 0);
  CHECK(container_limit_breach(*watch) == "killed: memory limit 64 MiB");
}

TEST_CASE("A fork refused at the container's process limit since the command started is told with the limit") {
  CgroupRoot root;
  root.write_v2(0, 4);
  const auto watch = watch_container_limits(nullptr, "64", root.path);
  REQUIRE(watch);
  CHECK_FALSE(container_limit_breach(*watch));  // earlier refusals are not this command's
  root.write_v2(0, 5);
  CHECK(container_limit_breach(*watch) == "killed: process limit 64");
}

TEST_CASE("A container that broke both limits is told its memory limit, and a count without its limit is no breach") {
  CgroupRoot both;
  both.write_v1(0, 0);
  const auto watch = watch_container_limits("67108864", "64", both.path);
  REQUIRE(watch);
  both.write_v1(1, 1);
  CHECK(container_limit_breach(*watch) == "killed: memory limit 64 MiB");  // an OOM may also refuse forks
  CgroupRoot forks_only;
  forks_only.write_v1(0, 0);
  const auto memory_watch = watch_container_limits("67108864", nullptr, forks_only.path);
  REQUIRE(memory_watch);
  forks_only.write_v1(0, 3);
  CHECK_FALSE(container_limit_breach(*memory_watch));
}

TEST_CASE("No watch outside a container with a limit, or with limits that are no numbers") {
  CHECK_FALSE(watch_container_limits(nullptr, nullptr));
  CHECK_FALSE(watch_container_limits("0", "0"));
  CHECK_FALSE(watch_container_limits("64M", "many"));
  CHECK_FALSE(watch_container_limits(nullptr, "4294967296"));  // more than a process limit holds
  CHECK(watch_container_limits(nullptr, "64"));
}
