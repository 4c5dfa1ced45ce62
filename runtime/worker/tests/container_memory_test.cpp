#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "runtime/worker/container_memory.hpp"

using namespace volador::worker;
namespace fs = std::filesystem;

namespace {

// A folder standing for a container's /sys/fs/cgroup, removed at the end.
struct CgroupRoot {
  inline static int made = 0;
  fs::path path = fs::temp_directory_path() /
                  ("volador-container-memory-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  CgroupRoot() { fs::create_directories(path); }
  ~CgroupRoot() { fs::remove_all(path); }
  void write(const fs::path& file, const std::string& text) const {
    fs::create_directories((path / file).parent_path());
    std::ofstream(path / file) << text;
  }
};

}  // namespace

TEST_CASE("The container's OOM kills are read from cgroup v1's oom_control, else v2's memory.events") {
  CgroupRoot v1;
  v1.write("memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  CHECK(container_oom_kills(v1.path) == 2);
  CgroupRoot v2;
  v2.write("memory.events", "low 0\nhigh 0\nmax 7\noom 1\noom_kill 1\noom_group_kill 0\n");
  CHECK(container_oom_kills(v2.path) == 1);
  CHECK(container_oom_kills(v2.path / "missing") == 0);
}

TEST_CASE("A kill at the container's memory limit since the command started is told with the limit") {
  CgroupRoot root;
  root.write("memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n");
  const auto watch = watch_container_memory("67108864", root.path);
  REQUIRE(watch);
  CHECK(watch->oom_kills_before == 1);  // an earlier kill is not this command's
  CHECK_FALSE(container_memory_breach(*watch, 1));
  CHECK(container_memory_breach(*watch, 2) == "killed: memory limit 64 MiB");
}

TEST_CASE("No watch outside a container with a memory limit, or with a limit that is no number") {
  CHECK_FALSE(watch_container_memory(nullptr));
  CHECK_FALSE(watch_container_memory("0"));
  CHECK_FALSE(watch_container_memory("64M"));
}
