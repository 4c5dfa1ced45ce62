#include "runtime/scheduling/slot_scheduler.hpp"

#include <algorithm>

#include "runtime/scheduling/pool_scheduler.hpp"

namespace volador::scheduling {

SlotScheduler::SlotScheduler(Clock clock) : clock_(std::move(clock)) {}
SlotScheduler::~SlotScheduler() = default;
SlotScheduler::SlotScheduler(SlotScheduler&&) noexcept = default;
SlotScheduler& SlotScheduler::operator=(SlotScheduler&&) noexcept = default;

PoolScheduler& SlotScheduler::pool(const std::string& name) {
  auto& pool = pools_[name];
  if (!pool) pool = std::make_unique<PoolScheduler>(name);
  return *pool;
}

void SlotScheduler::set_pool(const std::string& name, const PoolPolicy& policy) { pool(name).set_policy(policy); }

std::vector<TrialId> SlotScheduler::add_agent(AgentSpec agent) {
  auto lost = remove_agent(agent.agent_id);
  auto& target = pool(agent.pool);
  target.add_agent(agent);
  agent_pools_[agent.agent_id] = &target;
  return lost;
}

std::vector<TrialId> SlotScheduler::add_agent(const std::string& agent_id, std::uint32_t cpu_slots) {
  return add_agent(agent_id, std::vector<std::string>(cpu_slots, kCpuKind));
}

std::vector<TrialId> SlotScheduler::add_agent(const std::string& agent_id, std::vector<std::string> slot_kinds) {
  return add_agent(AgentSpec{.agent_id = agent_id, .slot_kinds = std::move(slot_kinds)});
}

std::vector<TrialId> SlotScheduler::remove_agent(const std::string& agent_id) {
  auto it = agent_pools_.find(agent_id);
  if (it == agent_pools_.end()) return {};
  auto lost = it->second->remove_agent(agent_id);
  agent_pools_.erase(it);
  for (auto trial_id : lost) trial_pools_.erase(trial_id);
  return lost;
}

void SlotScheduler::set_agent_open(const std::string& agent_id, bool open) {
  if (auto it = agent_pools_.find(agent_id); it != agent_pools_.end()) it->second->set_agent_open(agent_id, open);
}

Status SlotScheduler::request(const SlotRequest& request) {
  if (request.slots == 0)
    return fail(Error::invalid_argument("trial " + std::to_string(request.trial_id) + " asks for 0 slots"));
  if (auto valid = validate_share(request.share); !valid) return valid;
  release(request.trial_id);
  auto& target = pool(request.share.pool);
  target.request(request);
  trial_pools_[request.trial_id] = &target;
  return {};
}

void SlotScheduler::release(TrialId trial_id) {
  auto it = trial_pools_.find(trial_id);
  if (it == trial_pools_.end()) return;
  it->second->release(trial_id);
  trial_pools_.erase(it);
}

bool SlotScheduler::hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices) {
  auto agent = agent_pools_.find(agent_id);
  if (agent == agent_pools_.end()) return false;
  auto* target = agent->second;
  if (auto trial = trial_pools_.find(trial_id); trial != trial_pools_.end() && trial->second != target) return false;
  if (!target->hold(trial_id, agent_id, slot_indices, clock_())) return false;
  trial_pools_[trial_id] = target;
  return true;
}

Status SlotScheduler::attribute(TrialId trial_id, const ExperimentShare& share) {
  auto it = trial_pools_.find(trial_id);
  if (it == trial_pools_.end())
    return fail(Error::not_found("trial " + std::to_string(trial_id) + " holds no slots"));
  if (auto valid = validate_share(share); !valid) return valid;
  if (&pool(share.pool) != it->second)
    return fail(Error::invalid_argument("trial " + std::to_string(trial_id) + " holds slots in another pool than '" +
                                        share.pool + "'"));
  return it->second->attribute(trial_id, share);
}

const Allocation* SlotScheduler::allocation(TrialId trial_id) const {
  auto it = trial_pools_.find(trial_id);
  return it == trial_pools_.end() ? nullptr : it->second->allocation(trial_id);
}

Decision SlotScheduler::schedule() {
  Decision decision;
  const auto now_ms = clock_();
  for (auto& [name, pool] : pools_) pool->decide(now_ms, decision);
  return decision;
}

std::uint32_t SlotScheduler::largest_trial(const std::string& pool, bool needs_images) const {
  auto it = pools_.find(pool);
  return it == pools_.end() ? 0 : it->second->agents().largest_trial(needs_images);
}

std::vector<AgentUsage> SlotScheduler::usage() const {
  std::vector<AgentUsage> out;
  for (const auto& [name, pool] : pools_)
    for (const auto& [id, agent] : pool->agents().agents())
      out.push_back({.agent_id = id, .pool = name, .labels = agent.labels, .slot_owners = agent.owners});
  std::ranges::sort(out, {}, &AgentUsage::agent_id);
  return out;
}

std::vector<PoolUsage> SlotScheduler::pools() const {
  std::vector<PoolUsage> out;
  for (const auto& [name, pool] : pools_) out.push_back(pool->usage());
  return out;
}

std::vector<ExperimentUsage> SlotScheduler::experiments(const std::string& pool) const {
  auto it = pools_.find(pool);
  return it == pools_.end() ? std::vector<ExperimentUsage>{} : it->second->experiments();
}

std::uint32_t SlotScheduler::free_slots(const std::string& agent_id) const {
  auto it = agent_pools_.find(agent_id);
  if (it == agent_pools_.end()) return 0;
  const auto* agent = it->second->agents().find(agent_id);
  return static_cast<std::uint32_t>(std::ranges::count(agent->owners, TrialId{0}));
}

std::size_t SlotScheduler::pending() const {
  std::size_t pending = 0;
  for (const auto& [name, pool] : pools_) pending += pool->pending_trials();
  return pending;
}

}  // namespace volador::scheduling
