#include <catch2/catch.hpp>

#include "runtime/config/cluster_config.hpp"

namespace volador::config {
namespace {

ClusterConfig cluster_ok(const std::string& yaml) {
  auto outcome = parse_cluster_config(yaml, "cluster.yaml");
  if (auto* errors = std::get_if<std::vector<ConfigError>>(&outcome)) FAIL(format_errors(*errors) << "in:\n" << yaml);
  return std::get<ClusterConfig>(outcome);
}

std::vector<std::string> cluster_errors(const std::string& yaml) {
  auto outcome = parse_cluster_config(yaml, "cluster.yaml");
  if (std::holds_alternative<ClusterConfig>(outcome)) FAIL("accepted:\n" << yaml);
  std::vector<std::string> out;
  for (const auto& error : std::get<std::vector<ConfigError>>(outcome)) out.push_back(error.to_string());
  return out;
}

TEST_CASE("Without a cluster config the cluster has one pool, default, taking all work", "[config][cluster]") {
  const auto cluster = default_cluster_config();
  REQUIRE(cluster.pools.size() == 1);
  CHECK(cluster.pools[0].name == "default");
  CHECK(cluster.pools[0].scheduler.type == PoolSchedulerType::priority);
  CHECK(cluster.default_pool(false) == "default");
  CHECK(cluster.default_pool(true) == "default");
}

TEST_CASE("A cluster config declares pools, their schedulers and the default pools", "[config][cluster]") {
  const auto cluster = cluster_ok(
      "resource_pools:\n"
      "  - name: gpus\n"
      "    description: the A100 hosts\n"
      "    scheduler: {type: priority, preemption: false, min_run_time: 5min}\n"
      "  - name: cpus\n"
      "default_gpu_pool: gpus\n"
      "default_cpu_pool: cpus\n");
  REQUIRE(cluster.pools.size() == 2);
  CHECK(cluster.pools[0].name == "gpus");
  CHECK(cluster.pools[0].description == "the A100 hosts");
  CHECK_FALSE(cluster.pools[0].scheduler.preemption);
  CHECK(cluster.pools[0].scheduler.min_run_time == std::chrono::minutes(5));
  CHECK(cluster.pools[1].scheduler.preemption);
  CHECK(cluster.default_pool(true) == "gpus");
  CHECK(cluster.default_pool(false) == "cpus");
  CHECK(cluster.pool("cpus") == &cluster.pools[1]);
  CHECK(cluster.pool("tpus") == nullptr);
}

TEST_CASE("A cluster config's defaults are the first pool and the priority scheduler with preemption",
          "[config][cluster]") {
  const auto cluster = cluster_ok("resource_pools:\n  - name: a\n  - name: b\n");
  CHECK(cluster.default_pool(true) == "a");
  CHECK(cluster.default_pool(false) == "a");
  CHECK(cluster.pools[1].scheduler.type == PoolSchedulerType::priority);
  CHECK(cluster.pools[1].scheduler.preemption);
  CHECK(cluster.pools[1].scheduler.min_run_time == std::chrono::minutes(1));
}

TEST_CASE("A bad cluster config is refused with every error at FILE:LINE:COL", "[config][cluster]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"resource_pools: []\n", {"cluster.yaml:1:17: resource_pools: expected at least one pool, got an empty list"}},
      {"resource_pool:\n  - name: a\n",
       {"cluster.yaml:1:1: resource_pool: unknown field; did you mean \"resource_pools\"?"}},
      {"resource_pools:\n  - name: a\n  - name: a\n",
       {"cluster.yaml:3:11: resource_pools[1].name: a second pool named \"a\"; pool names are unique"}},
      {"resource_pools:\n  - name: a\ndefault_gpu_pool: b\n",
       {"cluster.yaml:3:19: default_gpu_pool: no pool named \"b\" in resource_pools"}},
      {"resource_pools:\n  - name: gpus\ndefault_cpu_pool: gpu\n",
       {"cluster.yaml:3:19: default_cpu_pool: no pool named \"gpu\" in resource_pools; did you mean \"gpus\"?"}},
      {"resource_pools:\n  - name: a b\n",
       {"cluster.yaml:2:11: resource_pools[0].name: expected a pool name of 1 to 64 of a-z A-Z 0-9 _ . -, got "
        "\"a b\""}},
      {"resource_pools:\n  - name: a\n    scheduler: {type: fair}\n",
       {"cluster.yaml:3:23: resource_pools[0].scheduler.type: expected one of priority; got \"fair\""}},
      {"resource_pools:\n  - name: a\n    scheduler: {min_run_time: 10}\n",
       {"cluster.yaml:3:31: resource_pools[0].scheduler.min_run_time: '10' is not a duration: a whole number and a "
        "unit (ms, s, min, h), e.g. 500ms"}},
      {"resource_pools:\n  - name: a\n    schedular: {}\n",
       {"cluster.yaml:3:5: resource_pools[0].schedular: unknown field; did you mean \"scheduler\"?"}},
      {"resource_pools:\n  - description: x\n",
       {"cluster.yaml:2:5: resource_pools[0].name: missing required field"}},
  };
  for (const auto& [yaml, errors] : cases) {
    CAPTURE(yaml);
    CHECK(cluster_errors(yaml) == errors);
  }
}

}  // namespace
}  // namespace volador::config
