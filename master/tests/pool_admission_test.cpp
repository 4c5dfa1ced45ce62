#include <catch2/catch.hpp>

#include "master/pool_admission.hpp"
#include "master/pool_list.hpp"

using namespace volador;
using namespace volador::master;

namespace {

config::ClusterConfig two_pools() {
  auto outcome = config::parse_cluster_config(
      "resource_pools:\n"
      "  - {name: gpus, description: A100 hosts, scheduler: {preemption: false, min_run_time: 5min}}\n"
      "  - {name: cpus}\n"
      "default_gpu_pool: gpus\n"
      "default_cpu_pool: cpus\n",
      "cluster.yaml");
  REQUIRE(std::holds_alternative<config::ClusterConfig>(outcome));
  return std::get<config::ClusterConfig>(outcome);
}

}  // namespace

TEST_CASE("An experiment goes to the pool it names, else to the default GPU pool when it has GPUs, else the CPU one") {
  const auto cluster = two_pools();
  CHECK(choose_pool(cluster, "cpus", true).value() == "cpus");
  CHECK(choose_pool(cluster, "", true).value() == "gpus");
  CHECK(choose_pool(cluster, "", false).value() == "cpus");
  auto unknown = choose_pool(cluster, "tpus", true);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ErrorCode::invalid_argument);
  CHECK(unknown.error().message == "this cluster has no pool named 'tpus' (its pools: gpus, cpus)");
}

TEST_CASE("A trial larger than any agent of its pool can give is refused but a pool without agents refuses nothing") {
  CHECK(check_fits("gpus", 4, 4));
  CHECK(check_fits("gpus", 16, 0));  // no agent yet: it waits
  auto refused = check_fits("gpus", 8, 4);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "resources.slots_per_trial: 8 slots per trial can never be scheduled in pool 'gpus': its agents can give one "
        "trial at most 4 slots of one kind (CPU slots, or GPUs of one model)");
  auto image = check_fits("gpus", 8, 4, true);
  REQUIRE_FALSE(image);
  CHECK(image.error().message ==
        "resources.slots_per_trial: 8 slots per trial can never be scheduled in pool 'gpus': its agents that run "
        "images (environment.image) can give one trial at most 4 slots of one kind (CPU slots, or GPUs of one model)");
}

TEST_CASE("Every trial asks for the pool its experiment was admitted to, or its config's when none was journaled") {
  storage::ExperimentRecord record;
  config::Resources resources;  // names no pool
  record.resource_pool = "cpus";
  CHECK(trial_pool(record, resources) == "cpus");
  record.resource_pool.clear();  // journaled before the admitted pool was kept
  CHECK(trial_pool(record, resources).empty());
  resources.resource_pool = "gpus";
  CHECK(trial_pool(record, resources) == "gpus");
}

TEST_CASE("An experiment's resources become its share of the pool: priority and weight") {
  config::Resources resources;
  resources.priority = 10;
  resources.weight = 2.5;
  const auto share = experiment_share(7, resources, "gpus");
  CHECK(share == scheduling::ExperimentShare{.experiment_id = 7, .pool = "gpus", .priority = 10, .weight = 2.5});
  CHECK(scheduling::validate_share(experiment_share(7, config::Resources{}, "cpus")));
}

TEST_CASE("The pool list shows every configured pool, its scheduler, use, queue and experiments") {
  const auto cluster = two_pools();
  const std::vector<scheduling::PoolUsage> usage{{.pool = "cpus", .agents = 2, .slots = 8, .used_slots = 6,
                                                  .running_trials = 3, .pending_trials = 4, .pending_slots = 8,
                                                  .preempting_trials = 1}};
  std::map<std::string, std::vector<scheduling::ExperimentUsage>> experiments{
      {"cpus", {{.share = {.experiment_id = 3, .pool = "cpus", .priority = 10, .weight = 2},
                 .allocated_slots = 6, .running_trials = 3, .pending_trials = 4, .pending_slots = 8,
                 .ideal_slots = 5.5}}}};
  const auto list = list_pools(cluster, usage, experiments);
  REQUIRE(list.pools.size() == 2);
  const auto& gpus = list.pools[0];
  CHECK((gpus.name == "gpus" && gpus.description == "A100 hosts" && gpus.scheduler == "priority"));
  CHECK((!gpus.preemption && gpus.min_run_time_ms == 300'000));
  CHECK((gpus.agents == 0 && gpus.slots == 0 && gpus.experiments.empty()));  // unknown to the scheduler: empty
  const auto& cpus = list.pools[1];
  CHECK((cpus.agents == 2 && cpus.slots == 8 && cpus.used_slots == 6 && cpus.running_trials == 3));
  CHECK((cpus.pending_trials == 4 && cpus.pending_slots == 8 && cpus.preempting_trials == 1));
  REQUIRE(cpus.experiments.size() == 1);
  CHECK((cpus.experiments[0].experiment_id == 3 && cpus.experiments[0].priority == 10));
  CHECK((cpus.experiments[0].weight == 2 && cpus.experiments[0].ideal_slots == 5.5));
}
