#include "actors/idle_workers.hpp"

#include "actors/worker_sandbox.hpp"

namespace volador::actors {

WorkerReuseKey reuse_key(const wire::LaunchSpec& spec, const std::string& master) {
  return {spec.experiment_id, spec.slot, spec.entrypoint, spec.environment_variables, master, sandbox_key(spec)};
}

std::optional<IdleWorkers::WorkerId> IdleWorkers::park(WorkerId worker, WorkerReuseKey key, std::int64_t now_ms) {
  const auto slot = key.slot;
  std::optional<WorkerId> displaced;
  if (auto it = by_slot_.find(slot); it != by_slot_.end()) displaced = it->second.worker;
  by_slot_.insert_or_assign(slot, Idle{worker, std::move(key), now_ms});
  return displaced;
}

IdleWorkers::Claim IdleWorkers::claim(const WorkerReuseKey& key) {
  auto it = by_slot_.find(key.slot);
  if (it == by_slot_.end()) return {};
  const auto worker = it->second.worker;
  const bool same = it->second.key == key;
  by_slot_.erase(it);
  return same ? Claim{worker, std::nullopt} : Claim{std::nullopt, worker};
}

bool IdleWorkers::forget(WorkerId worker) {
  return std::erase_if(by_slot_, [&](const auto& entry) { return entry.second.worker == worker; }) > 0;
}

std::vector<IdleWorkers::WorkerId> IdleWorkers::expire(std::int64_t now_ms) {
  std::vector<WorkerId> expired;
  std::erase_if(by_slot_, [&](const auto& entry) {
    if (now_ms - entry.second.since_ms < idle_limit_ms_) return false;
    expired.push_back(entry.second.worker);
    return true;
  });
  return expired;
}

std::vector<IdleWorkers::WorkerId> IdleWorkers::take_all() {
  std::vector<WorkerId> all;
  for (const auto& [slot, idle] : by_slot_) all.push_back(idle.worker);
  by_slot_.clear();
  return all;
}

}  // namespace volador::actors
