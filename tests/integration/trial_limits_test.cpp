// End to end: a rank's memory and process limits (cgroups), a runaway rank
// ended whole, the agent's working folders reclaimed, and a full work disk
// keeping trials off its agent. The limits need
// root and the memory and pids controllers; without them the cases say so.
// The fork bomb is bounded by its own loop (and `ulimit -u` where it binds),
// so it stays small even if the limits did nothing.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/sandbox/cgroup_layout.hpp"
#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// A memory hog: a string that doubles in the shell's own memory, so every
// page it takes comes from a fault in user space, which waits frozen at a
// cgroup v1 limit until the agent ends the rank. (`head -c 400m /dev/zero |
// tail` also takes pages inside read(), which on v1 fails with EFAULT
// instead: tail exits and the script went on to COMPLETED.)
constexpr const char* kHog = "x=a; while :; do x=\"$x$x\"; done\necho accuracy=0.1\n";

std::string command_config(const std::string& name, const std::string& entrypoint, const std::string& resources = "") {
  return single_command_config(name, entrypoint, resources.empty() ? "" : "resources: {" + resources + "}\n");
}

// True where this host lets an agent make cgroups with memory and pids limits; else a WARN.
bool cgroups_usable() {
  if (geteuid() == 0 && sandbox::own_cgroup("")) return true;
  WARN("skipped: trial limits need root and the memory and pids cgroup controllers");
  return false;
}

nlohmann::json only_trial(const Cluster& cluster, const std::string& experiment_id) {
  auto trials = describe_experiment(cluster, experiment_id)["trials"];
  REQUIRE(trials.size() == 1);
  return trials[0];
}

bool ended(const Cluster& cluster, const std::string& experiment_id) {
  const auto state = describe_experiment(cluster, experiment_id)["state"];
  return state == "COMPLETED" || state == "ERROR" || state == "CANCELED";
}

std::string trial_logs(const Cluster& cluster, const nlohmann::json& trial) {
  return cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
}

// The working folders of trial `trial_id` under the agent's `work` folder (in any worker's home).
std::size_t trial_folders(const fs::path& work, const nlohmann::json& trial) {
  const auto prefix = "trial-" + trial["id"].dump() + "-run-";
  std::size_t found = 0;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(work, ec))
    if (entry.is_directory(ec) && entry.path().filename().string().starts_with(prefix)) ++found;
  return found;
}

// The rank cgroups of the agent of the cluster in `data_dir` (its group in the
// pids hierarchy, or in the unified one) and the processes in them.
struct RankCgroupCount {
  std::size_t cgroups = 0;
  std::size_t processes = 0;
};
RankCgroupCount rank_cgroups(const fs::path& data_dir) {
  RankCgroupCount count;
  std::error_code ec;
  for (const auto& root : {fs::path("/sys/fs/cgroup/pids"), fs::path("/sys/fs/cgroup")})
    for (const auto& group : fs::directory_iterator(root, ec)) {
      const auto name = group.path().filename().string();
      if (!name.starts_with("volador-agent-")) continue;
      std::ifstream cmdline("/proc/" + name.substr(std::string("volador-agent-").size()) + "/cmdline");
      std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
      if (text.find((data_dir / "agent-work").string()) == std::string::npos) continue;
      for (const auto& rank : fs::directory_iterator(group.path(), ec)) {
        if (!rank.is_directory(ec)) continue;
        ++count.cgroups;
        std::ifstream procs(rank.path() / "cgroup.procs");
        for (std::string pid; procs >> pid;) ++count.processes;
      }
    }
  return count;
}

// A tmpfs of `size` mounted at `folder` (created), unmounted at the end; `mounted` false where that is not allowed.
struct SmallDisk {
  fs::path folder;
  bool mounted = false;
  SmallDisk(fs::path at, const std::string& size) : folder(std::move(at)) {
    fs::create_directories(folder);
    mounted = run_command({"mount", "-t", "tmpfs", "-o", "size=" + size, "volador-small-disk", folder.string()}).exit_code == 0;
  }
  ~SmallDisk() {
    if (mounted) run_command({"umount", "-l", folder.string()});
  }
};

// The trials waiting for slots in the default pool.
int pool_pending_trials(const Cluster& cluster) {
  for (const auto& pool : cluster.cli({"pool", "list", "--json"}).json())
    if (pool["name"] == "default") return pool["pending_trials"];
  return -1;
}

}  // namespace

TEST_CASE("A memory hog and a fork bomb end in ERROR with their limit in the log while a neighbouring trial completes") {
  if (!cgroups_usable()) return;
  TempDir dir;
  const auto hog = dir.path() / "hog";
  const auto bomb = dir.path() / "bomb";
  const auto neighbour = dir.path() / "neighbour";
  write_file(hog / "hog.sh", kHog);
  write_file(bomb / "bomb.sh",
             "ulimit -u 512 2>/dev/null\n"
             "i=0\n"
             "while [ $i -lt 300 ]; do sleep 120 & i=$((i+1)); done\n"
             "wait\n"
             "echo accuracy=0.1\n");
  write_file(neighbour / "ok.sh", "sleep 3\necho accuracy=0.75\n");
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(3, {"--keep-failed-work-dirs", "1h"});
  const auto work = dir.path() / "data" / "agent-work";

  const auto hog_id = submit(cluster, hog, command_config("hog", "sh hog.sh", "memory_limit: 64M"));
  const auto bomb_id = submit(cluster, bomb, command_config("bomb", "sh bomb.sh", "max_processes: 64"));
  const auto neighbour_id = submit(cluster, neighbour, command_config("neighbour", "sh ok.sh"));
  REQUIRE(eventually([&] { return ended(cluster, hog_id) && ended(cluster, bomb_id) && ended(cluster, neighbour_id); }, 180));

  const auto hog_trial = only_trial(cluster, hog_id);
  CHECK(hog_trial["state"] == "ERROR");
  CHECK(trial_logs(cluster, hog_trial).find("killed: memory limit 64 MiB") != std::string::npos);
  const auto bomb_trial = only_trial(cluster, bomb_id);
  CHECK(bomb_trial["state"] == "ERROR");
  CHECK(trial_logs(cluster, bomb_trial).find("killed: process limit 64") != std::string::npos);
  const auto neighbour_trial = only_trial(cluster, neighbour_id);
  CHECK(neighbour_trial["state"] == "COMPLETED");
  CHECK(neighbour_trial["best_validation"] == 0.75);

  // Folders: the completed trial's gone, the failed ones kept for --keep-failed-work-dirs.
  CHECK(eventually([&] { return trial_folders(work, neighbour_trial) == 0; }));
  CHECK(trial_folders(work, hog_trial) == 1);
  CHECK(trial_folders(work, bomb_trial) == 1);
  CHECK(eventually([&] { return processes_under(work) == 0; }));  // the bomb's sleeps too
  CHECK(eventually([&] { return rank_cgroups(dir.path() / "data").cgroups == 0; }));  // the warm neighbour's: once idle
}

TEST_CASE("A memory hog in a sandboxed rank ends in ERROR with its limit in the log: the sandbox and the cgroup together") {
  if (!cgroups_usable()) return;
  TempDir dir;
  const auto hog = dir.path() / "hog";
  write_file(hog / "hog.sh", kHog);
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--sandbox", "on", "--keep-failed-work-dirs", "0"});
  const auto id = submit(cluster, hog, command_config("hog", "sh hog.sh", "memory_limit: 64M"));
  REQUIRE(eventually([&] { return ended(cluster, id); }, 180));
  const auto trial = only_trial(cluster, id);
  CHECK(trial["state"] == "ERROR");
  CHECK(trial_logs(cluster, trial).find("killed: memory limit 64 MiB") != std::string::npos);
  CHECK(eventually([&] { return processes_under(dir.path() / "data" / "agent-work") == 0; }));
  CHECK(eventually([&] { return rank_cgroups(dir.path() / "data").cgroups == 0; }));
}

TEST_CASE("A trial that ignores SIGTERM is gone with every process it started within its grace after a kill") {
  if (!cgroups_usable()) return;
  TempDir dir;
  const auto project = dir.path() / "stubborn";
  // Children that ignore SIGTERM too, one in a session of its own.
  write_file(project / "stubborn.sh",
             "trap '' TERM\n"
             "sh -c \"trap '' TERM; sleep 300\" &\n"
             "setsid sh -c \"trap '' TERM; sleep 300\" &\n"
             "while true; do sleep 1; done\n");
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--keep-failed-work-dirs", "0"});
  const auto work = dir.path() / "data" / "agent-work";
  const auto id = submit(cluster, project, command_config("stubborn", "sh stubborn.sh", "kill_grace_period: 1s"));
  // The worker (and its sandbox), the shell, the two children and their sleeps.
  REQUIRE(eventually([&] { return rank_cgroups(dir.path() / "data").processes >= 6; }, 120));
  REQUIRE(rank_cgroups(dir.path() / "data").cgroups == 1);

  REQUIRE(cluster.cli({"experiment", "kill", id}).exit_code == 0);
  // Grace 1 s, the agent's margin 5 s: well within 30 s.
  CHECK(eventually([&] { return rank_cgroups(dir.path() / "data").cgroups == 0; }, 30));
  CHECK(processes_under(work) == 0);
  CHECK(eventually([&] { return only_trial(cluster, id)["state"] == "CANCELED"; }));
  CHECK(eventually([&] { return trial_folders(work, only_trial(cluster, id)) == 0; }));  // --keep-failed-work-dirs 0
}

TEST_CASE("Rank limits above what every agent of the pool allows are refused at submission") {
  if (!cgroups_usable()) return;  // an agent without limits allows any
  TempDir dir;
  const auto project = dir.path() / "greedy";
  write_file(project / "ok.sh", "echo accuracy=0.5\n");
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--rank-memory-limit", "256M", "--rank-max-processes", "128"});
  const auto create = [&](const std::string& resources) {
    write_file(project / "distributed.yaml", command_config("greedy", "sh ok.sh", resources));
    return cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  };
  auto memory = create("memory_limit: 1G");
  CHECK(memory.exit_code == 1);
  CHECK(memory.err.find("resources.memory_limit: 1024 MiB is more than any agent of pool default allows a rank (at "
                        "most 256 MiB)") != std::string::npos);
  auto processes = create("max_processes: 129");
  INFO(processes.err);
  CHECK(processes.exit_code == 1);
  CHECK(processes.err.find("resources.max_processes: 129 is more than any agent of pool default allows a rank (at "
                           "most 128)") != std::string::npos);
  auto allowed = create("memory_limit: 256M, max_processes: 128");
  INFO(allowed.err);
  CHECK(allowed.exit_code == 0);
}

TEST_CASE("Rank limits asked of a pool whose agents run their ranks without limits are refused at submission") {
  TempDir dir;
  const auto project = dir.path() / "limited";
  write_file(project / "ok.sh", "echo accuracy=0.5\n");
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--no-trial-limits"});
  const auto create = [&](const std::string& resources) {
    write_file(project / "distributed.yaml", command_config("limited", "sh ok.sh", resources));
    return cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  };
  for (const auto* field : {"memory_limit: 64M", "max_processes: 64"}) {
    const auto refused = create(field);
    INFO(refused.err);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::Contains(": no agent of pool default enforces it: each runs its ranks without limits"));
  }
  CHECK(create("").exit_code == 0);
}

TEST_CASE("An agent whose work disk falls below its minimum is given no trial: the trial waits, uncounted, and runs once there is room") {
  TempDir dir;
  const auto work = dir.path() / "data" / "agent-work";
  SmallDisk disk(work, "64m");
  if (!disk.mounted) {
    WARN("skipped: mounting a small tmpfs as the agent's work disk needs root");
    return;
  }
  const auto project = dir.path() / "waits";
  write_file(project / "ok.sh", "echo accuracy=0.5\n");
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--min-free-disk", "32M"});
  const auto agent = [&] { return cluster.cli({"agent", "list", "--json"}).json()[0]; };
  CHECK(agent()["work_disk_refusal"].is_null());
  CHECK(agent()["work_disk_free_bytes"] > 32 << 20);

  write_file(work / "filler", std::string(48 << 20, 'x'));  // the agent tells the pool at once
  REQUIRE(eventually([&] { return agent()["work_disk_refusal"].is_string(); }));
  CHECK_THAT(agent()["work_disk_refusal"].get<std::string>(),
             Catch::Contains("below the 32 MiB (--min-free-disk) an agent needs to start a trial"));
  CHECK_THAT(cluster.cli({"agent", "list"}).out, Catch::Contains("MiB (full)"));
  const auto id = submit(cluster, project, command_config("waits", "sh ok.sh"));
  REQUIRE(eventually([&] { return pool_pending_trials(cluster) == 1; }));
  CHECK_FALSE(eventually([&] { return ended(cluster, id); }, 3));  // it waits: not failed one launch after another
  CHECK(only_trial(cluster, id)["restarts"] == 0);

  fs::remove(work / "filler");
  REQUIRE(eventually([&] { return ended(cluster, id); }, 60));
  const auto trial = only_trial(cluster, id);
  CHECK(trial["state"] == "COMPLETED");
  CHECK(trial["restarts"] == 0);
  CHECK(agent()["work_disk_refusal"].is_null());
}
