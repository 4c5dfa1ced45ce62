#pragma once
// Which resource pool an experiment's trials go to, and whether they could
// ever run there: what the master checks when an experiment is submitted and
// what each trial tells the scheduler (its experiment's share of the pool).

#include <cstdint>
#include <string>

#include "runtime/config/cluster_config.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "runtime/scheduling/slot_request.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The pool named `requested` (resources.resource_pool) or, when it is empty,
// the cluster's default: its default GPU pool when `gpu_default_has_gpus`
// (an agent there offers GPUs), else its default CPU pool. invalid_argument
// naming the cluster's pools when there is no such pool (an agent's --pool
// is checked the same way).
Result<std::string> choose_pool(const config::ClusterConfig& cluster, const std::string& requested,
                                bool gpu_default_has_gpus);

// invalid_argument "resources.slots_per_trial: ..." when a trial of `slots`
// slots can never run in `pool`, whose agents (those that run images, when
// the trial `needs_images`) can give one trial at most `largest` slots of
// one kind. A pool without such agents (largest 0) refuses nothing: its
// trials wait for agents to join.
Status check_fits(const std::string& pool, std::uint32_t slots, std::uint32_t largest, bool needs_images = false);

// The pool every trial of the experiment asks for: the one it was admitted
// to (journaled in `record`), or, for an experiment journaled before that was
// kept, its `resources.resource_pool` (empty: the cluster's default, chosen
// at each request).
std::string trial_pool(const storage::ExperimentRecord& record, const config::Resources& resources);

// How experiment `experiment_id`'s trials share `pool`: its resources'
// priority and weight.
scheduling::ExperimentShare experiment_share(std::uint64_t experiment_id, const config::Resources& resources,
                                             const std::string& pool);

}  // namespace volador::master
