#include "master/ended_trial_bests.hpp"

namespace volador::master {

std::optional<std::optional<double>> EndedTrialBests::find(std::uint64_t trial_id) const {
  std::lock_guard lock(mutex_);
  auto it = bests_.find(trial_id);
  if (it == bests_.end()) return std::nullopt;
  return it->second;
}

void EndedTrialBests::remember(std::uint64_t trial_id, std::optional<double> best) {
  std::lock_guard lock(mutex_);
  bests_.insert_or_assign(trial_id, best);
}

}  // namespace volador::master
