// End to end: a trial's output and processes cannot hurt its agent, its
// master or the machine: a trial printing 1 GiB keeps every node's memory
// bounded and its log says what was dropped; `trial kill` ends every process
// a command started, however it detached; a command that exits while a
// process it started holds its output still ends its trial.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/integration/cluster_fixture.hpp"
#include "tests/integration/process_stats.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

std::string command_config(const std::string& entrypoint, const std::string& extra = "") {
  return single_command_config("output", entrypoint, extra);
}

// The peak resident memory of `pid` (VmHWM in /proc/PID/status), in MiB.
std::uint64_t peak_rss_mib(pid_t pid) {
  const long kib = status_kib(pid, "VmHWM");
  if (kib < 0) FAIL("no VmHWM for process " << pid);
  return static_cast<std::uint64_t>(kib) / 1024;
}

// The agent process of the cluster in `data_dir` (a volador-node agent working under it).
pid_t agent_pid(const fs::path& data_dir) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream file(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (cmdline.find(std::string("agent") + '\0') != std::string::npos &&
        cmdline.find((data_dir / "agent-work").string()) != std::string::npos &&
        cmdline.find("volador-node") != std::string::npos)
      return std::stoi(entry.path().filename().string());
  }
  FAIL("no agent process for " << data_dir);
  return 0;
}

// The experiment's only trial, as `experiment describe --json` shows it.
nlohmann::json only_trial(const Cluster& cluster, const std::string& experiment_id) {
  auto trials = describe_experiment(cluster, experiment_id)["trials"];
  REQUIRE(trials.size() == 1);
  return trials[0];
}

}  // namespace

TEST_CASE("A trial printing 1 GiB leaves its agent and master answering with bounded memory and its log marked") {
  TempDir dir;
  const auto project = dir.path() / "project";
  const auto flags = dir.path() / "flags";
  fs::create_directories(flags);
  // 1 GiB of 1 KiB lines at full speed, and on until the test has asked the
  // master its questions (so they are asked mid-flood); then a metric.
  write_file(project / "flood.py",
             "import os, sys\n"
             "flags = os.environ['FLOOD_FLAGS']\n"
             "block = ('x' * 1023 + '\\n') * 1024\n"
             "written = 0\n"
             "while written < 1024 or not os.path.exists(flags + '/asked'):\n"
             "    sys.stdout.write(block)\n"
             "    written += 1\n"
             "    if written == 64: open(flags + '/flooding', 'w').close()\n"
             "sys.stdout.write('accuracy=0.5\\n')\n");
  write_file(project / "distributed.yaml",
             command_config("/usr/bin/python3 flood.py",
                            "environment:\n  environment_variables: [FLOOD_FLAGS=" + flags.string() + "]\n"));
  Cluster cluster(dir.path() / "data", 1);
  const pid_t agent = agent_pid(dir.path() / "data");
  const auto id = submit(cluster, project);

  REQUIRE(eventually([&] { return fs::exists(flags / "flooding"); }, 120));
  // The control plane answers mid-flood: the agent still holds the trial.
  auto agents = cluster.cli({"agent", "list", "--json"});
  REQUIRE(agents.exit_code == 0);
  CHECK(agents.out.find("test-agent") != std::string::npos);
  CHECK(cluster.cli({"trial", "describe", only_trial(cluster, id)["id"].dump(), "--json"}).exit_code == 0);
  write_file(flags / "asked", "");

  REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] != "ACTIVE"; }, 300));
  const auto trial = only_trial(cluster, id);
  CHECK(trial["state"] == "COMPLETED");
  CHECK(trial["best_validation"] == 0.5);  // the metric after the flood was read: the worker read everything

  const auto agent_peak = peak_rss_mib(agent), master_peak = peak_rss_mib(cluster.master_pid());
  WARN("peak RSS with a 1 GiB printer: agent " << agent_peak << " MiB, master " << master_peak << " MiB");
  CHECK(agent_peak < 256);   // before: 1.66 GB, growing with the output
  CHECK(master_peak < 512);

  // The log kept a bounded share and says what it dropped, with a page by default and all on request.
  auto tail = cluster.cli({"trial", "logs", trial["id"].dump()});
  REQUIRE(tail.exit_code == 0);
  CHECK(tail.err.find("--all for every line") != std::string::npos);
  CHECK(std::count(tail.out.begin(), tail.out.end(), '\n') == 1000);
  auto all = cluster.cli({"trial", "logs", trial["id"].dump(), "--all", "--json"});
  REQUIRE(all.exit_code == 0);
  const auto lines = all.json();
  CHECK(lines.size() < 200'000);
  std::size_t markers = 0;
  for (const auto& line : lines)
    if (line["stream"] == "system" && line["text"].get<std::string>().find("of output dropped") != std::string::npos)
      ++markers;
  CHECK(markers >= 1);
}

TEST_CASE("Killing a command trial ends every process its command started in any process group or session") {
  TempDir dir;
  const auto project = dir.path() / "project";
  // A child in the command's group, one in a session of its own, and a grandchild of a shell that exited.
  write_file(project / "spawn.sh",
             "sleep 300 &\n"
             "setsid sleep 300 &\n"
             "sh -c 'sleep 300 &'\n"
             "echo spawned\n"
             "wait\n");
  write_file(project / "distributed.yaml", command_config("sh spawn.sh"));
  Cluster cluster(dir.path() / "data", 1);
  const auto work = dir.path() / "data" / "agent-work";
  const auto id = submit(cluster, project);
  // The worker, the shell and its three sleeps.
  REQUIRE(eventually([&] { return processes_under(work) >= 5; }, 120));
  const auto trial_id = only_trial(cluster, id)["id"].dump();

  REQUIRE(cluster.cli({"trial", "kill", trial_id}).exit_code == 0);
  CHECK(eventually([&] { return processes_under(work) == 0; }, 60));  // before: the sleeps ran on
  CHECK(eventually([&] { return only_trial(cluster, id)["state"] == "CANCELED"; }));
}

TEST_CASE("A command that exits while a process it started holds its output completes its trial") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "leave.sh", "sleep 300 &\necho accuracy=0.75\n");
  write_file(project / "distributed.yaml", command_config("sh leave.sh"));
  Cluster cluster(dir.path() / "data", 1);

  auto created = create_and_follow(cluster, project, 240);  // before: ACTIVE until the sleep ended
  REQUIRE(created.exit_code == 0);
  const auto experiment = created.json();
  CHECK(experiment["state"] == "COMPLETED");
  CHECK(experiment["trials"][0]["best_validation"] == 0.75);
  CHECK(eventually([&] { return processes_under(dir.path() / "data" / "agent-work") == 0; }));
  auto logs = cluster.cli({"trial", "logs", experiment["trials"][0]["id"].dump()});
  CHECK(logs.out.find("ending the 1 process(es) it left running") != std::string::npos);
}
