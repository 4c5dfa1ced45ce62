#include <catch2/catch.hpp>

#include "runtime/sandbox/cgroup_layout.hpp"

using namespace volador::sandbox;

namespace {

// This kind of host: memory and pids as cgroup v1, a cgroup2 with neither.
constexpr const char* kV1Mountinfo =
    "30 25 0:26 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "33 30 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:7 - cgroup cgroup rw,cpu\n"
    "35 30 0:31 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "39 30 0:35 / /sys/fs/cgroup/pids rw,relatime shared:13 - cgroup cgroup rw,pids\n"
    "41 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr const char* kV1Cgroups =
    "8:pids:/\n4:memory:/process_api/9c3a\n1:cpu,cpuacct:/\n0::/\n";

// A systemd host on cgroup v2 alone.
constexpr const char* kV2Mountinfo =
    "24 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "28 24 0:25 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
constexpr const char* kV2Cgroups = "0::/system.slice/volador-agent.service\n";

}  // namespace

TEST_CASE("cgroup v1 with memory and pids: the process's folder in each hierarchy") {
  auto dirs = locate_cgroup(kV1Mountinfo, kV1Cgroups, "");
  REQUIRE(dirs);
  CHECK(dirs->version == CgroupVersion::v1);
  CHECK(dirs->memory == "/sys/fs/cgroup/memory/process_api/9c3a");
  CHECK(dirs->pids == "/sys/fs/cgroup/pids");
}

TEST_CASE("cgroup v2: one folder for both controllers") {
  auto dirs = locate_cgroup(kV2Mountinfo, kV2Cgroups, "");
  REQUIRE(dirs);
  CHECK(dirs->version == CgroupVersion::v2);
  CHECK(dirs->memory == "/sys/fs/cgroup/system.slice/volador-agent.service");
  CHECK(dirs->pids == dirs->memory);
  CHECK(dirs->child("w").memory == "/sys/fs/cgroup/system.slice/volador-agent.service/w");
}

TEST_CASE("An operator's cgroup parent is a path under each hierarchy's root") {
  auto v1 = locate_cgroup(kV1Mountinfo, kV1Cgroups, "/volador");
  REQUIRE(v1);
  CHECK(v1->memory == "/sys/fs/cgroup/memory/volador");
  CHECK(v1->pids == "/sys/fs/cgroup/pids/volador");
  auto v2 = locate_cgroup(kV2Mountinfo, kV2Cgroups, "volador.slice");
  REQUIRE(v2);
  CHECK(v2->memory == "/sys/fs/cgroup/volador.slice");
}

TEST_CASE("A hierarchy mounted from a subtree (a container's cgroup namespace) drops the mount's root") {
  const char* mountinfo = "50 40 0:31 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
  auto dirs = locate_cgroup(mountinfo, "0::/docker/abc/trials\n", "");
  REQUIRE(dirs);
  CHECK(dirs->memory == "/sys/fs/cgroup/trials");
}

TEST_CASE("Only one of the v1 controllers mounted: the cgroup2 hierarchy is used") {
  const char* mountinfo =
      "35 30 0:31 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "41 30 0:37 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
  auto dirs = locate_cgroup(mountinfo, "4:memory:/a\n0::/b\n", "");
  REQUIRE(dirs);
  CHECK(dirs->version == CgroupVersion::v2);
  CHECK(dirs->memory == "/sys/fs/cgroup/unified/b");
}

TEST_CASE("No cgroup mount at all is an error saying so") {
  auto dirs = locate_cgroup("24 1 8:1 / / rw - ext4 /dev/sda1 rw\n", "0::/\n", "");
  REQUIRE_FALSE(dirs);
  CHECK(dirs.error().message.find("memory and pids controllers") != std::string::npos);
}
