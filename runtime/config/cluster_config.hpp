#pragma once
// The cluster config the master reads (`volador-node master|up
// --cluster-config FILE`): its resource pools, which pool takes work that
// names none, and each pool's scheduler. Errors as an experiment config's:
// every one at once, FILE:LINE:COL: field: message, with did-you-means.
//
//   resource_pools:
//     - name: gpus
//       description: the A100 hosts
//       scheduler: {type: priority, preemption: true, min_run_time: 5min}
//     - name: cpus
//   default_gpu_pool: gpus   # default: the first pool
//   default_cpu_pool: cpus   # default: the first pool
//
// An agent naming no pool (`--pool`) joins the default GPU pool when it
// offers GPUs, else the default CPU pool. An experiment naming none
// (resources.resource_pool) goes to the default GPU pool when an agent there
// offers GPUs when it is submitted, else to the default CPU pool.
//
// Without a file the cluster has one pool, `default` (defaults below).

#include <chrono>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/config/config_parser.hpp"

namespace volador::config {

// The one scheduler there is (runtime/scheduling/README.md): priority order,
// weighted fair share within a priority, gangs, backfill and preemption.
enum class PoolSchedulerType { priority };

struct PoolScheduler {
  PoolSchedulerType type = PoolSchedulerType::priority;
  // Whether waiting work may take slots from less important or over-served
  // running trials (which checkpoint and wait again).
  bool preemption = true;
  // A trial is not preempted before it has run this long since it got its slots.
  std::chrono::milliseconds min_run_time{std::chrono::minutes(1)};
};

struct PoolConfig {
  std::string name;  // 1 to 64 of a-z A-Z 0-9 _ . -
  std::string description;
  PoolScheduler scheduler;
};

struct ClusterConfig {
  std::vector<PoolConfig> pools;  // at least one, names unique, in file order
  std::string default_cpu_pool;   // a name in `pools`
  std::string default_gpu_pool;   // a name in `pools`

  // The pool named `name`, or null.
  [[nodiscard]] const PoolConfig* pool(std::string_view name) const;
  // The pool an agent naming none joins: the GPU default when it offers GPUs.
  [[nodiscard]] const std::string& default_pool(bool gpus) const {
    return gpus ? default_gpu_pool : default_cpu_pool;
  }
};

inline constexpr std::string_view kDefaultPoolName = "default";

// One pool named `default` with the default scheduler: the cluster without a file.
ClusterConfig default_cluster_config();

// The scheduler's name as written in the file ("priority").
std::string_view to_string(PoolSchedulerType type);

using ClusterParseOutcome = std::variant<ClusterConfig, std::vector<ConfigError>>;

// Parses `yaml_text` (named `file_name` in errors): the config, or every
// error found (never an empty list), ordered by position. The document
// limits of parse_experiment_config apply.
ClusterParseOutcome parse_cluster_config(std::string_view yaml_text, std::string_view file_name);

}  // namespace volador::config
