// End to end: a stalled process (SIGSTOP past the connection timeout, then
// SIGCONT) must cost no trial and no metric. The nodes run with short
// timings (a silent peer dropped after 2 s), and each stall lasts until the
// stalled process's peers have closed their connections to it: the kernel's
// view of its sockets, not a sleep.
#include <catch2/catch.hpp>

#include <deque>
#include <fstream>
#include <future>
#include <regex>
#include <sstream>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// One trial of the native example, long enough to be mid-training at a stall,
// with no restart to spare: a stall must never cost one.
std::string stall_config() {
  return native_trial_config("stall",
                             "min_validation_period: {epochs: 20}\n"
                             "min_checkpoint_period: {epochs: 20}\n"
                             "max_restarts: 0\n"
                             "searcher: {name: single, metric: accuracy, smaller_is_better: false, "
                             "max_length: {epochs: 400}}\n");
}

// The pid of the worker the agent started for `trial_id` (from the nodes' log), or 0.
pid_t worker_pid(const fs::path& nodes_log, const std::string& trial_id) {
  std::ifstream in(nodes_log);
  const std::regex started("trial " + trial_id + " run \\d+ rank 0: worker pid (\\d+)");
  pid_t pid = 0;
  std::smatch match;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, match, started)) pid = std::stoi(match[1]);
  return pid;
}

// The parent of process `pid`, or 0.
pid_t parent_of(pid_t pid) {
  std::ifstream stat(fs::path("/proc") / std::to_string(pid) / "stat");
  std::string text;
  std::getline(stat, text);
  const auto after_name = text.rfind(')');
  if (after_name == std::string::npos) return 0;
  std::istringstream rest(text.substr(after_name + 2));
  char state = 0;
  pid_t parent = 0;
  rest >> state >> parent;
  return parent;
}

// The volador-worker process that the agent's process `spawned` runs: itself,
// or its descendant inside the rank's sandbox.
pid_t worker_process(pid_t spawned) {
  const auto worker = fs::canonical(binary("volador-worker"));
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::error_code ec;
    if (fs::read_symlink(entry.path() / "exe", ec) != worker || ec) continue;
    const pid_t pid = std::atoi(entry.path().filename().c_str());
    for (pid_t up = pid; up > 1; up = parent_of(up))
      if (up == spawned) return pid;
  }
  return spawned;
}

// Whether a log line tells of an event, not of training progress (a failure's
// report shows events: CI cuts a long report, and training lines fill it).
bool is_event(const std::string& line) {
  return line.find("trained batches") == std::string::npos && line.find("validated") == std::string::npos;
}

// The last `count` event lines of `text`, one per line.
std::string last_events(std::istream& text, std::size_t count) {
  std::deque<std::string> lines;
  for (std::string line; std::getline(text, line);) {
    if (!is_event(line)) continue;
    lines.push_back(std::move(line));
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

struct StallCluster {
  TempDir dir;
  fs::path project = dir.path() / "project";
  Cluster cluster{dir.path() / "data"};
  MetricHistory expected;

  // A master and an agent with short link timings, and the metrics of the trial run undisturbed.
  StallCluster() {
    write_file(project / "distributed.yaml", stall_config());
    cluster.add_node_arguments(short_link_timings(dir.path()));
    cluster.start_master();
    cluster.start_agent(1);
    const auto reference = submit(cluster, project);
    REQUIRE(ended(reference));
    expected = metric_history(cluster, first_trial(reference)["id"].dump());
  }
  nlohmann::json first_trial(const std::string& id) const { return describe_experiment(cluster, id)["trials"][0]; }
  bool ended(const std::string& id) const {
    return eventually([&] { return describe_experiment(cluster, id)["state"] != "ACTIVE"; }, 90);
  }
  // Submits the trial and waits until it is mid-training (a checkpoint taken).
  std::string submit_and_train() const {
    const auto id = submit(cluster, project);
    REQUIRE(eventually([&] { return !checkpoints(cluster, id).empty(); }, 60));
    return id;
  }
  // The trial ended COMPLETED, without a restart, with the undisturbed run's metrics.
  void check_undisturbed(const std::string& id) const {
    const bool done = ended(id);
    const auto trial = first_trial(id);
    std::ifstream nodes(nodes_log());
    INFO("the nodes' last events:\n" << last_events(nodes, 60));
    std::istringstream logs(cluster.cli({"trial", "logs", trial["id"].dump(), "--all"}).out);
    INFO("the trial's last events:\n" << last_events(logs, 30));
    REQUIRE(done);
    CHECK(trial["state"] == "COMPLETED");
    CHECK(trial["restarts"] == 0);
    CHECK(metric_history(cluster, trial["id"].dump()) == expected);
  }
  fs::path nodes_log() const { return dir.path() / "data" / "nodes.log"; }
  // Stops process `pid` until `peers` of its peers dropped their connections
  // with the master's port (the stall outlasted their connection timeout), then resumes it.
  void stall(pid_t pid, std::size_t peers) const {
    REQUIRE(stall_until_dropped(pid, port_of(cluster.master_address()), peers));
  }
};

}  // namespace

TEST_CASE("A master stalled past the connection timeout keeps its agent and its trial reports exact metrics") {
  StallCluster stall;
  const auto id = stall.submit_and_train();
  stall.stall(stall.cluster.master_pid(), 2);  // until the agent and the rank worker gave the master up
  stall.check_undisturbed(id);
  // The old run's worker is gone.
  CHECK(eventually([&] { return processes_under(stall.dir.path() / "data" / "agent-work") == 0; }, 30));
  // The agent came back to the same master and still serves it.
  const auto agents = stall.cluster.cli({"agent", "list", "--json"});
  INFO(agents.err);
  REQUIRE(agents.exit_code == 0);
  CHECK(agents.out.find("test-agent") != std::string::npos);
  const auto again = stall.submit_and_train();
  stall.check_undisturbed(again);
}

TEST_CASE("A rank worker stalled past the connection timeout rejoins its running trial and the trial reports exact metrics") {
  StallCluster stall;
  const auto id = stall.submit_and_train();
  const auto trial_id = stall.first_trial(id)["id"].dump();
  const auto spawned = worker_pid(stall.nodes_log(), trial_id);
  REQUIRE(spawned != 0);
  stall.stall(worker_process(spawned), 1);  // until the master dropped the silent worker's link
  stall.check_undisturbed(id);
  const auto logs = stall.cluster.cli({"trial", "logs", trial_id, "--all"}).out;
  INFO(logs);
  CHECK(logs.find("rank 0 of run 1 reconnected to the master") != std::string::npos);
  CHECK(logs.find("run 2 launching") == std::string::npos);  // the run went on
}

// The master drops the silent agent and restarts the trial from its checkpoint
// while the old run's worker, still connected, trains on and answers: those
// answers must never be journaled (issue 17's report from a superseded run).
TEST_CASE("An agent stalled past the connection timeout comes back and its trial reports exact metrics") {
  StallCluster stall;
  const auto id = stall.submit_and_train();
  const auto agent = pid_with_arguments({"agent", (stall.dir.path() / "data" / "agent-work").string()});
  REQUIRE(agent != 0);
  stall.stall(agent, 1);  // until the master dropped the silent agent's link
  stall.check_undisturbed(id);
  const auto trial_id = stall.first_trial(id)["id"].dump();
  const auto logs = stall.cluster.cli({"trial", "logs", trial_id, "--all"}).out;
  INFO(logs);
  CHECK(logs.find("lost an agent running this trial; restarting (not counted as a restart)") != std::string::npos);
}

TEST_CASE("A client following an experiment through a stall of its own reconnects and follows it to the end") {
  StallCluster stall;
  auto follow = std::async(std::launch::async, [&] { return create_and_follow(stall.cluster, stall.project); });
  const std::string id = "2";  // the reference experiment is 1
  auto checkpointed = [&] {  // the experiment may not exist yet
    const auto listed = stall.cluster.cli({"checkpoint", "list", id, "--json"});
    return listed.exit_code == 0 && !listed.json().empty();
  };
  REQUIRE(eventually(checkpointed, 60));
  const auto client = pid_with_arguments({"--follow", stall.project.string()});
  REQUIRE(client != 0);
  stall.stall(client, 1);  // until the master dropped the silent client's link
  const auto followed = follow.get();
  INFO(followed.err);
  CHECK(followed.exit_code == 0);
  stall.check_undisturbed(id);
}
