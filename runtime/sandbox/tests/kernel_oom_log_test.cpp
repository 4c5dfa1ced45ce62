#include <catch2/catch.hpp>

#include "runtime/sandbox/kernel_oom_log.hpp"

using namespace volador::sandbox;

namespace {

constexpr const char* kId = "104c9c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a37268692023b37174b00";

// The kernel's lines for an OOM kill in podman's container `kId` (cgroup v1, cgroupfs), as this host logged them.
constexpr const char* kPodmanOomKill =
    "sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n"
    "Memory cgroup stats for /libpod_parent/libpod-104c9c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a37268692023b37174b00:\n"
    "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=libpod-104c9c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a"
    "37268692023b37174b00,mems_allowed=0,oom_memcg=/libpod_parent/libpod-104c9c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a"
    "37268692023b37174b00,task_memcg=/libpod_parent/libpod-104c9c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a37268692023b3"
    "7174b00,task=sh,pid=27247,uid=0\n"
    "Memory cgroup out of memory: Killed process 27247 (sh) total-vm:125484kB, anon-rss:64748kB\n";

}  // namespace

TEST_CASE("An OOM kill in a container's cgroup is found by the container's id") {
  CHECK(oom_kill_logged_for(kPodmanOomKill, kId));
  // docker's cgroupfs and systemd paths name the id too.
  CHECK(oom_kill_logged_for(std::string("oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/system.slice/docker-") + kId +
                                ".scope,task_memcg=/system.slice/docker-" + kId + ".scope,task=python3,pid=9,uid=0\n",
                            kId));
}

TEST_CASE("Another container's OOM kill, the stats line alone or an empty id are no OOM kill of this container") {
  const std::string other = "9f2e0c0b7bd44e2f25a0d0b7dc58514cc7ac8f84c51a37268692023b37174b00";
  CHECK_FALSE(oom_kill_logged_for(kPodmanOomKill, other));
  CHECK_FALSE(oom_kill_logged_for(std::string("Memory cgroup stats for /libpod_parent/libpod-") + kId + ":\n", kId));
  // A kill in a parent's scope names the container only as the task's cgroup: the limit broken was not its own.
  CHECK_FALSE(oom_kill_logged_for(std::string("oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/volador,task_memcg=/volador/libpod-") +
                                      kId + ",task=sh,pid=3,uid=0\n",
                                  kId));
  CHECK_FALSE(oom_kill_logged_for(kPodmanOomKill, ""));
}
