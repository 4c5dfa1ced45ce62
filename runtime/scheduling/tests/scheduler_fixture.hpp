#pragma once
// What the scheduling tables share: a clock the test moves and requests
// written in one line.

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <ostream>

#include "runtime/scheduling/slot_scheduler.hpp"

namespace volador::scheduling {

// How Catch shows the records in a failed check.
inline std::ostream& operator<<(std::ostream& out, const Placement& placement) {
  out << placement.agent_id << ":[";
  for (auto i : placement.slot_indices) out << ' ' << i;
  return out << " ]";
}
inline std::ostream& operator<<(std::ostream& out, const Preemption& preemption) {
  return out << "trial " << preemption.trial_id << " for experiment " << preemption.for_experiment;
}

}  // namespace volador::scheduling

namespace volador::scheduling::testing {

// A clock at `now_ms` that the test moves; the scheduler holds a copy of
// the function, which reads the shared time.
struct ManualClock {
  std::shared_ptr<std::int64_t> now_ms = std::make_shared<std::int64_t>(1'000'000);
  [[nodiscard]] Clock clock() const {
    return [now = now_ms] { return *now; };
  }
  void advance(std::int64_t ms) const { *now_ms += ms; }
};

// Queues trial `trial_id` of `slots` slots with `share`, which must be valid.
inline void queue(SlotScheduler& s, TrialId trial_id, std::uint32_t slots, const ExperimentShare& share = {}) {
  REQUIRE(s.request({.trial_id = trial_id, .slots = slots, .share = share}));
}

inline ExperimentShare experiment(ExperimentId id, int priority = kDefaultPriority, double weight = 1.0,
                                  std::string pool = kDefaultPool) {
  return {.experiment_id = id, .pool = std::move(pool), .priority = priority, .weight = weight};
}

// The trial ids granted by `decision`, in grant order.
inline std::vector<TrialId> granted(const Decision& decision) {
  std::vector<TrialId> ids;
  for (const auto& allocation : decision.grants) ids.push_back(allocation.trial_id);
  return ids;
}

inline std::vector<TrialId> preempted(const Decision& decision) {
  std::vector<TrialId> ids;
  for (const auto& preemption : decision.preemptions) ids.push_back(preemption.trial_id);
  return ids;
}

}  // namespace volador::scheduling::testing
