// Sharing a cluster (issue 16) end to end on one host with several agents:
// resource pools from a cluster config, agents joining them, the fair share
// between experiments, preemption by priority through the pause path, and
// the refusals at submission and registration.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "tests/integration/cluster_fixture.hpp"

namespace volador::testing {
namespace {

// Two pools: `default`, and `spare`, which starts without agents. A trial is
// not preempted before it has run 500 ms.
std::filesystem::path cluster_config(const std::filesystem::path& dir) {
  const auto path = dir / "cluster.yaml";
  write_file(path,
             "resource_pools:\n"
             "  - name: default\n"
             "    description: the test's agents\n"
             "    scheduler: {type: priority, preemption: true, min_run_time: 500ms}\n"
             "  - name: spare\n"
             "    description: joined later\n");
  return path;
}

// One native trial of `epochs` epochs (about 1 ms each here) with a validation and a
// checkpoint every tenth of them, and `resources`.
std::string single_trial(const std::string& name, int epochs, const std::string& resources) {
  const auto period = std::to_string(std::max(1, epochs / 10));
  return native_trial_config(name, "min_validation_period: {epochs: " + period + "}\n"
                                   "min_checkpoint_period: {epochs: " + period + "}\n"
                                   "max_restarts: 0\n"
                                   "searcher: {name: single, metric: accuracy, smaller_is_better: false, "
                                   "max_length: {epochs: " + std::to_string(epochs) + "}}\n"
                                   "resources: {" + resources + "}\n");
}

// `trials` native trials of `epochs` epochs at once (a grid over the width), and `resources`.
std::string many_trials(const std::string& name, int trials, int epochs, const std::string& resources) {
  return "name: " + name + "\n"
         "entrypoint: native:mlp_classifier\n"
         "data: {train_records: 2000, validation_records: 500}\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "  learning_rate: 0.05\n"
         "  hidden_units: {type: int, minval: 16, maxval: " + std::to_string(15 + trials) + ", count: " +
         std::to_string(trials) + "}\n"
         "records_per_epoch: 2000\n"
         "scheduling_unit: 20\n"
         "min_checkpoint_period: {epochs: " + std::to_string(std::max(1, epochs / 6)) + "}\n"
         "max_restarts: 0\n"
         "experiment_seed: 7\n"
         "searcher: {name: grid, metric: accuracy, smaller_is_better: false, max_concurrent_trials: " +
         std::to_string(trials) + ", max_length: {epochs: " + std::to_string(epochs) + "}}\n"
         "resources: {" + resources + "}\n";
}

// Two pools: `cpus`, the default for CPU work, and `gpus`, the default for GPU work.
std::filesystem::path cpu_and_gpu_pools(const std::filesystem::path& dir) {
  const auto path = dir / "cluster.yaml";
  write_file(path,
             "resource_pools:\n"
             "  - name: cpus\n"
             "  - name: gpus\n"
             "default_cpu_pool: cpus\n"
             "default_gpu_pool: gpus\n");
  return path;
}

nlohmann::json pool_named(const Cluster& cluster, const std::string& name) {
  const auto listed = cluster.cli({"pool", "list", "--json"});
  REQUIRE(listed.exit_code == 0);
  for (const auto& pool : listed.json())
    if (pool["name"] == name) return pool;
  FAIL("no pool " << name << " in " << listed.out);
  return {};
}

// The slots each experiment of `pool` holds now, by experiment id.
std::map<std::uint64_t, std::uint32_t> allocated_by_experiment(const nlohmann::json& pool) {
  std::map<std::uint64_t, std::uint32_t> out;
  for (const auto& e : pool["experiments"]) out[e["experiment_id"].get<std::uint64_t>()] = e["allocated_slots"];
  return out;
}

bool state_is(const Cluster& cluster, const std::string& id, const std::string& state, int timeout_s = 240) {
  return eventually([&] { return describe_experiment(cluster, id)["state"] == state; }, timeout_s);
}

}  // namespace

TEST_CASE("Two experiments of equal weight share the slots of their pool evenly") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master({"--cluster-config", cluster_config(dir.path()).string()});
  cluster.start_named_agent("agent-a", 2);
  cluster.start_named_agent("agent-b", 2);
  const auto first = submit(cluster, dir.path() / "first", many_trials("first", 6, 600, "weight: 1"));
  REQUIRE(eventually([&] { return allocated_by_experiment(pool_named(cluster, "default"))[std::stoull(first)] == 4; }));
  const auto second = submit(cluster, dir.path() / "second", many_trials("second", 6, 600, "weight: 1"));
  // The later experiment gets half the pool (the first one's trials beyond
  // its share checkpoint and wait), and both then run on two slots each.
  REQUIRE(eventually(
      [&] {
        auto shares = allocated_by_experiment(pool_named(cluster, "default"));
        return shares[std::stoull(first)] == 2 && shares[std::stoull(second)] == 2;
      },
      120));
  const auto pool = pool_named(cluster, "default");
  CHECK(pool["slots"] == 4);
  CHECK(pool["agents"] == 2);
  for (const auto& e : pool["experiments"]) CHECK(e["ideal_slots"].get<double>() == Approx(2.0));
  REQUIRE(state_is(cluster, first, "COMPLETED"));
  REQUIRE(state_is(cluster, second, "COMPLETED"));
}

TEST_CASE("A priority-10 experiment preempts a priority-50 one, which resumes with the metrics of an uninterrupted run") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master({"--cluster-config", cluster_config(dir.path()).string()});
  cluster.start_named_agent("only-agent", 1);
  auto first_trial = [&](const std::string& id) { return describe_experiment(cluster, id)["trials"][0]; };

  const auto reference = submit(cluster, dir.path() / "reference", single_trial("reference", 1500, "priority: 50"));
  REQUIRE(state_is(cluster, reference, "COMPLETED"));
  const auto expected = metric_history(cluster, first_trial(reference)["id"].dump());

  const auto low = submit(cluster, dir.path() / "low", single_trial("low", 1500, "priority: 50"));
  REQUIRE(eventually([&] { return !checkpoints(cluster, low).empty(); }, 120));
  // Whether or not the low trial has run its 500 ms yet, it is preempted:
  // at once, or as soon as it has (1,500 epochs take longer on any machine).
  const auto high = submit(cluster, dir.path() / "high", single_trial("high", 4, "priority: 10"));
  REQUIRE(state_is(cluster, high, "COMPLETED"));
  REQUIRE(state_is(cluster, low, "COMPLETED"));

  const auto trial = first_trial(low);
  CHECK(trial["preemptions"] == 1);
  CHECK(trial["restarts"] == 0);
  CHECK(metric_history(cluster, trial["id"].dump()) == expected);
  const auto logs = cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
  CHECK(logs.find("preempted by the scheduler to make room for experiment " + high) != std::string::npos);
  CHECK(logs.find("slots given to experiment " + high + "; it resumes from its checkpoint") != std::string::npos);
}

TEST_CASE("A pool with no agents queues its experiment until an agent joins it, and agents show their pool and labels") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master({"--cluster-config", cluster_config(dir.path()).string()});
  cluster.start_named_agent("busy-agent", 1, {"--label", "rack=a1"});
  const auto id = submit(cluster, dir.path() / "spare", single_trial("spare", 4, "resource_pool: spare"));
  REQUIRE(eventually([&] { return pool_named(cluster, "spare")["pending_trials"] == 1; }));
  CHECK(pool_named(cluster, "spare")["agents"] == 0);
  CHECK(describe_experiment(cluster, id)["state"] == "ACTIVE");

  cluster.start_named_agent("spare-agent", 1, {"--pool", "spare", "--label", "rack=b2", "--label", "disk=ssd"});
  REQUIRE(state_is(cluster, id, "COMPLETED"));
  const auto agents = cluster.cli({"agent", "list", "--json"}).json();
  REQUIRE(agents.size() == 2);
  CHECK(agents[0]["id"] == "busy-agent");
  CHECK(agents[0]["pool"] == "default");
  CHECK(agents[0]["labels"] == nlohmann::json{{"rack", "a1"}});
  CHECK(agents[1]["pool"] == "spare");
  CHECK(agents[1]["labels"] == nlohmann::json{{"disk", "ssd"}, {"rack", "b2"}});
  const auto table = cluster.cli({"pool", "list"}).out;
  CHECK(table.find("spare") != std::string::npos);
  CHECK(table.find("joined later") != std::string::npos);
}

TEST_CASE("An experiment naming no pool keeps the pool it was admitted to for every trial, across a master restart, "
          "though GPUs join the default GPU pool later") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  const std::vector<std::string> config{"--cluster-config", cpu_and_gpu_pools(dir.path()).string()};
  cluster.start_master(config);
  cluster.start_named_agent("cpu-agent", 1);
  const auto gate = dir.path() / "gate";
  const auto project = dir.path() / "project";
  write_gated_project(project, gate, 2);
  // No agent offers GPUs yet: the experiment is admitted to the CPU default.
  const auto id = submit(cluster, project);
  auto trial_logs = [&](const nlohmann::json& trial) {
    return cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
  };
  REQUIRE(eventually([&] {
    const auto trials = describe_experiment(cluster, id)["trials"];
    return !trials.empty() && trial_logs(trials[0]).find("slot-type") != std::string::npos;
  }));
  cluster.kill_master();
  cluster.start_master(config);
  cluster.start_agent(1, {}, {{"VOLADOR_FAKE_GPUS", "1"}});  // joins `gpus`, the GPU default
  write_file(gate, "");
  REQUIRE(state_is(cluster, id, "COMPLETED"));
  const auto trials = describe_experiment(cluster, id)["trials"];
  REQUIRE(trials.size() == 2);
  // The second trial asked for slots only once the GPU agent was there.
  for (const auto& trial : trials) {
    const auto logs = trial_logs(trial);
    INFO(logs);
    CHECK(logs.find("slot-type cpu") != std::string::npos);
    CHECK(logs.find("slot-type gpu") == std::string::npos);
  }
}

TEST_CASE("An unknown pool or one that can never fit a trial is refused at submission and an unknown --pool at registration") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master({"--cluster-config", cluster_config(dir.path()).string()});
  cluster.start_named_agent("small-agent", 2);
  const auto project = dir.path() / "project";

  write_file(project / "distributed.yaml", single_trial("refused", 2, "resource_pool: tpus"));
  auto unknown = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("distributed.yaml: resources.resource_pool: this cluster has no pool named 'tpus' (its "
                         "pools: default, spare)") != std::string::npos);

  write_file(project / "distributed.yaml", single_trial("refused", 2, "slots_per_trial: 4"));
  auto too_big = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  CHECK(too_big.exit_code == 1);
  CHECK(too_big.err.find("resources.slots_per_trial: 4 slots per trial can never be scheduled in pool 'default': its "
                         "agents can give one trial at most 2 slots") != std::string::npos);

  // An empty pool refuses nothing for size: its agents may yet come.
  CHECK_FALSE(submit(cluster, project, single_trial("waits", 2, "resource_pool: spare, slots_per_trial: 4")).empty());

  const auto agent = run_command({binary("volador-node").string(), "agent", "-m", cluster.master_address(), "--id",
                                  "stray", "--pool", "tpu", "--bundle", issue_test_bundle(dir.path() / "data", "stray").string(),
                                  "--work-dir", (dir.path() / "stray").string()},
                                 60);
  CHECK(agent.exit_code == 1);
  CHECK((agent.out + agent.err).find("--pool: this cluster has no pool named 'tpu' (its pools: default, spare)") !=
        std::string::npos);
}

}  // namespace volador::testing
