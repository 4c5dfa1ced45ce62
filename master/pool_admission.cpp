#include "master/pool_admission.hpp"

#include <fmt/format.h>

namespace volador::master {

Result<std::string> choose_pool(const config::ClusterConfig& cluster, const std::string& requested,
                                bool gpu_default_has_gpus) {
  if (requested.empty()) return cluster.default_pool(gpu_default_has_gpus);
  if (cluster.pool(requested) != nullptr) return requested;
  std::string names;
  for (const auto& pool : cluster.pools) names += (names.empty() ? "" : ", ") + pool.name;
  return fail(Error::invalid_argument(
      fmt::format("this cluster has no pool named '{}' (its pools: {})", requested, names)));
}

Status check_fits(const std::string& pool, std::uint32_t slots, std::uint32_t largest, bool needs_images) {
  if (largest == 0 || slots <= largest) return {};
  return fail(Error::invalid_argument(fmt::format(
      "resources.slots_per_trial: {} slots per trial can never be scheduled in pool '{}': its agents{} can give one "
      "trial at most {} slots of one kind (CPU slots, or GPUs of one model)",
      slots, pool, needs_images ? " that run images (environment.image)" : "", largest)));
}

std::string trial_pool(const storage::ExperimentRecord& record, const config::Resources& resources) {
  return record.resource_pool.empty() ? resources.resource_pool : record.resource_pool;
}

scheduling::ExperimentShare experiment_share(std::uint64_t experiment_id, const config::Resources& resources,
                                             const std::string& pool) {
  return {.experiment_id = experiment_id,
          .pool = pool,
          .priority = static_cast<int>(resources.priority),
          .weight = resources.weight};
}

}  // namespace volador::master
