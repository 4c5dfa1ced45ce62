#pragma once
// What the scheduler shows of its state: agents (`volador agent list`,
// `slot list`), pools (`volador pool list`) and each pool's experiments
// with their fair share.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/scheduling/placement.hpp"
#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

// Slots of one agent held by one trial.
struct TrialSlots {
  TrialId trial_id = 0;
  std::uint32_t slots = 0;
  bool operator==(const TrialSlots&) const = default;
};

// One agent as the scheduler sees it.
struct AgentUsage {
  std::string agent_id;
  std::string pool;
  std::map<std::string, std::string> labels;
  std::vector<TrialId> slot_owners;  // per slot: the trial using it (held slots included), 0 when free

  [[nodiscard]] std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_owners.size()); }
  [[nodiscard]] std::uint32_t used_slots() const;
  // The trials with slots here and how many each, by trial id.
  [[nodiscard]] std::vector<TrialSlots> trials() const;
};

// One pool: its capacity, its use and its queue.
struct PoolUsage {
  std::string pool;
  std::uint32_t agents = 0;
  std::uint32_t slots = 0;           // of every agent in the pool
  std::uint32_t used_slots = 0;      // allocated or held
  std::uint32_t running_trials = 0;  // with an allocation (held ones included)
  std::uint32_t pending_trials = 0;  // queued
  std::uint32_t pending_slots = 0;   // that the queued trials ask for, together
  std::uint32_t preempting_trials = 0;  // asked to checkpoint and release, not released yet
};

// One experiment with trials running or queued in a pool.
struct ExperimentUsage {
  ExperimentShare share;
  std::uint32_t allocated_slots = 0;
  std::uint32_t running_trials = 0;
  std::uint32_t pending_trials = 0;
  std::uint32_t pending_slots = 0;
  // The slots it would hold under an ideal split of the pool (ideal_shares,
  // fair_share.hpp): a real number, its demand at most.
  double ideal_slots = 0;
};

}  // namespace volador::scheduling
