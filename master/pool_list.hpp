#pragma once
// What `volador pool list` and GET /api/v1/pools show: each pool of the
// cluster config with its capacity, use and queue and the experiments
// sharing it, from the resource pool's scheduler.

#include <map>
#include <string>
#include <vector>

#include "runtime/config/cluster_config.hpp"
#include "runtime/scheduling/scheduler_usage.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::master {

// Every pool of `cluster`, in its order; `usage` (SlotScheduler::pools) and
// `experiments` (SlotScheduler::experiments, by pool) fill in those the
// scheduler knows (a pool it does not know has no agents and no queue).
wire::PoolList list_pools(const config::ClusterConfig& cluster, const std::vector<scheduling::PoolUsage>& usage,
                          const std::map<std::string, std::vector<scheduling::ExperimentUsage>>& experiments);

}  // namespace volador::master
