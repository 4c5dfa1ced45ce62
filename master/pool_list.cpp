#include "master/pool_list.hpp"

#include <algorithm>

namespace volador::master {
namespace {

wire::PoolExperiment pool_experiment(const scheduling::ExperimentUsage& e) {
  return {.experiment_id = e.share.experiment_id,
          .priority = static_cast<std::uint32_t>(e.share.priority),
          .weight = e.share.weight,
          .allocated_slots = e.allocated_slots,
          .running_trials = e.running_trials,
          .pending_trials = e.pending_trials,
          .ideal_slots = e.ideal_slots};
}

}  // namespace

wire::PoolList list_pools(const config::ClusterConfig& cluster, const std::vector<scheduling::PoolUsage>& usage,
                          const std::map<std::string, std::vector<scheduling::ExperimentUsage>>& experiments) {
  wire::PoolList list;
  for (const auto& pool : cluster.pools) {
    wire::PoolStatus status{.name = pool.name,
                            .description = pool.description,
                            .scheduler = std::string(config::to_string(pool.scheduler.type)),
                            .preemption = pool.scheduler.preemption,
                            .min_run_time_ms = static_cast<std::uint64_t>(pool.scheduler.min_run_time.count())};
    if (auto used = std::ranges::find(usage, pool.name, &scheduling::PoolUsage::pool); used != usage.end()) {
      status.agents = used->agents;
      status.slots = used->slots;
      status.used_slots = used->used_slots;
      status.running_trials = used->running_trials;
      status.pending_trials = used->pending_trials;
      status.pending_slots = used->pending_slots;
      status.preempting_trials = used->preempting_trials;
    }
    if (auto shared = experiments.find(pool.name); shared != experiments.end())
      for (const auto& e : shared->second) status.experiments.push_back(pool_experiment(e));
    list.pools.push_back(std::move(status));
  }
  return list;
}

}  // namespace volador::master
