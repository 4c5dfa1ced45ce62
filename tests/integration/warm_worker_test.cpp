// End to end: warm rank workers (actors/agent_actor.hpp). Consecutive trials
// of one experiment on a slot run in one worker process, each trial's log
// holding exactly its own lines and its metrics its own; a worker whose trial
// was killed is never handed another; each trial's working folder holds the
// model definition as packed and nothing an earlier trial left there.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

#include "runtime/sandbox/folder_snapshot.hpp"
#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// Each trial prints one line naming its trial and learning rate, and reports
// its learning rate as its loss. The first trial of the experiment waits to
// be killed when a marker path is given.
constexpr const char* kScript = R"(for a in "$@"; do case "$a" in --lr=*) lr="${a#--lr=}";; esac; done
if [ -n "$WAIT_ONCE" ] && [ ! -e "$WAIT_ONCE" ]; then
  touch "$WAIT_ONCE"
  echo "waiting to be killed in trial $VOLADOR_TRIAL_ID"
  sleep 300
fi
echo "own line of trial $VOLADOR_TRIAL_ID with lr $lr"
echo "loss=$lr"
)";

// Each trial says whether its folder holds what an earlier trial left or
// changed, and the inode of a model file (the same in consecutive trials when
// the worker's folder was reused); then it leaves a file and a folder behind,
// and every third trial changes the model definition too.
constexpr const char* kLeavingScript = R"sh(if [ -e left-behind ] || [ -e left-folder ] || [ "$(cat data.txt)" != pristine ] || [ -x data.txt ] ||
   [ -n "$(ls -A "$VOLADOR_CHECKPOINT_DIR")" ] || [ -L volador-data.json ]; then
  echo "folder of trial $VOLADOR_TRIAL_ID holds what an earlier trial left"; ls -la
fi
echo "model file inode $(stat -c %i data.txt)"
echo left > left-behind
mkdir -p left-folder/inner && echo left > left-folder/inner/file
mkdir -p "$VOLADOR_CHECKPOINT_DIR/left-folder"
case $((VOLADOR_TRIAL_ID % 3)) in 0) echo changed >> data.txt;; 1) chmod +x data.txt;; 2) ln -sf data.txt volador-data.json;; esac
echo "loss=1"
)sh";

std::string search_config(int trials, const std::string& environment = "") {
  return "name: warm\n"
         "entrypoint: sh trial.sh\n" + environment +
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "  lr: {type: double, minval: 0.001, maxval: 0.1}\n"
         "searcher:\n"
         "  name: random\n"
         "  metric: loss\n"
         "  smaller_is_better: true\n"
         "  max_trials: " + std::to_string(trials) + "\n"
         "  max_length: {batches: 1}\n"
         "max_restarts: 0\n";
}

// The search of `trials` trials of `project` (its trial.sh and other files)
// on `cluster`, followed to its end: COMPLETED, with every trial.
nlohmann::json completed_search(Cluster& cluster, const fs::path& project, int trials) {
  write_file(project / "distributed.yaml", search_config(trials));
  auto created = create_and_follow(cluster, project, 300);
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  auto experiment = created.json();
  CHECK(experiment["state"] == "COMPLETED");
  REQUIRE(experiment["trials"].size() == static_cast<std::size_t>(trials));
  return experiment;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The pids of the agent's log lines "... worker pid N" after `prefix`.
std::multiset<std::string> logged_pids(const std::string& log, const std::string& prefix) {
  std::multiset<std::string> pids;
  const std::regex pattern(prefix + " pid ([0-9]+)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), pattern); it != std::sregex_iterator(); ++it)
    pids.insert((*it)[1]);
  return pids;
}

// Checks that `trial`'s log holds exactly its own line, and its loss is its learning rate.
void check_own_output(const Cluster& cluster, const nlohmann::json& trial) {
  const auto id = trial["id"].dump();
  INFO("trial " << id);
  const auto logs = cluster.cli({"trial", "logs", "--all", id}).out;
  INFO(logs);
  CHECK(std::regex_search(logs, std::regex("own line of trial " + id + " with lr ")));
  const std::regex any_own("own line of trial ([0-9]+)");
  std::size_t own_lines = 0;
  for (auto it = std::sregex_iterator(logs.begin(), logs.end(), any_own); it != std::sregex_iterator(); ++it) {
    CHECK((*it)[1] == id);
    ++own_lines;
  }
  CHECK(own_lines == 1);
  const auto lr = trial["hparams"]["lr"].get<double>();
  const auto history = metric_history(cluster, id);
  bool reported = false;
  for (const auto& [point, metrics] : history)
    if (metrics.contains("loss")) {
      CHECK(metrics["loss"].get<double>() == Approx(lr).epsilon(1e-5));
      reported = true;
    }
  CHECK(reported);
}

}  // namespace

TEST_CASE("A 20-trial command search on one slot runs in a few worker processes, each trial with its own log and metrics") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "trial.sh", kScript);
  Cluster cluster(dir.path() / "data", 1);

  const auto experiment = completed_search(cluster, project, 20);
  for (const auto& trial : experiment["trials"]) {
    CHECK(trial["state"] == "COMPLETED");
    check_own_output(cluster, trial);
  }
  const auto log = read_text(dir.path() / "data" / "nodes.log");
  const auto spawned = logged_pids(log, ": worker").size(), handed = logged_pids(log, "handed to idle worker").size();
  INFO("worker processes started: " << spawned << ", launches handed to idle workers: " << handed);
  CHECK(spawned + handed == 20);
  CHECK(spawned <= 5);  // one, unless a worker sat idle past the limit on a loaded machine
  // Idle workers end after the idle limit: nothing is left under the work folder.
  CHECK(eventually([&] { return processes_under(dir.path() / "data" / "agent-work") == 0; }, 60));
}

TEST_CASE("A worker whose trial was killed is never handed the next trial, which runs in a fresh one") {
  TempDir dir;
  const auto project = dir.path() / "project";
  const auto marker = dir.path() / "waited";
  write_file(project / "trial.sh", kScript);
  write_file(project / "distributed.yaml",
             search_config(4, "environment: {environment_variables: [WAIT_ONCE=" + marker.string() + "]}\n"));
  Cluster cluster(dir.path() / "data", 1);
  const auto id = submit(cluster, project);
  std::string killed, last_logs;
  const bool waiting = eventually([&] {
    last_logs.clear();
    const auto experiment = describe_experiment(cluster, id);
    for (const auto& trial : experiment["trials"]) {
      const auto logs = cluster.cli({"trial", "logs", "--all", trial["id"].dump()});
      last_logs += "trial " + trial["id"].dump() + ": " + logs.out + logs.err + "\n";
      if (logs.out.find("waiting to be killed") != std::string::npos) killed = trial["id"].dump();
    }
    return !killed.empty();
  }, 120);
  INFO(last_logs);
  REQUIRE(waiting);
  REQUIRE(cluster.cli({"trial", "kill", killed}).exit_code == 0);
  REQUIRE(eventually([&] {
    const auto state = describe_experiment(cluster, id)["state"];
    return state == "COMPLETED" || state == "ERROR" || state == "CANCELED";
  }, 240));

  const auto experiment = describe_experiment(cluster, id);
  std::size_t completed = 0;
  for (const auto& trial : experiment["trials"]) {
    if (trial["id"].dump() == killed) {
      CHECK(trial["state"] == "CANCELED");
      continue;
    }
    CHECK(trial["state"] == "COMPLETED");
    check_own_output(cluster, trial);
    ++completed;
  }
  CHECK(completed >= 1);
  const auto log = read_text(dir.path() / "data" / "nodes.log");
  std::smatch killed_worker;
  REQUIRE(std::regex_search(log, killed_worker, std::regex("trial " + killed + " run [0-9]+ rank 0: (worker|handed to idle worker) pid ([0-9]+)")));
  INFO(log);
  CHECK(logged_pids(log, "handed to idle worker").count(killed_worker[2]) == (killed_worker[1] == "worker" ? 0u : 1u));
  CHECK(eventually([&] { return processes_under(dir.path() / "data" / "agent-work") == 0; }, 60));
}

TEST_CASE("A warm worker's trials each find the model definition as packed, and nothing an earlier trial left") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "trial.sh", kLeavingScript);
  write_file(project / "data.txt", "pristine\n");
  Cluster cluster(dir.path() / "data", 1);

  const auto experiment = completed_search(cluster, project, 12);
  std::multiset<std::string> inodes;
  for (const auto& trial : experiment["trials"]) {
    const auto logs = cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
    INFO(logs);
    CHECK(trial["state"] == "COMPLETED");
    CHECK(logs.find("holds what an earlier trial left") == std::string::npos);
    std::smatch inode;
    REQUIRE(std::regex_search(logs, inode, std::regex("model file inode ([0-9]+)")));
    inodes.insert(inode[1]);
  }
  // Where the file system marks every change (Linux 6.13+), a worker's trial after an untouched one reuses its folder.
  const auto work = dir.path() / "data" / "agent-work";
  const bool reused = std::set<std::string>(inodes.begin(), inodes.end()).size() < inodes.size();
  CHECK(reused == sandbox::ctime_marks_every_change(work));
  // Idle workers end after the idle limit, and their folders with them.
  CHECK(eventually([&] { return fs::is_empty(work / "workers"); }, 60));
}
