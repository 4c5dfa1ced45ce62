#pragma once
// What one scheduling decision says to do.

#include <vector>

#include "runtime/scheduling/placement.hpp"
#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

// A running trial asked to checkpoint and release its slots, and the
// experiment it makes room for (what the trial's log says).
struct Preemption {
  TrialId trial_id = 0;
  ExperimentId for_experiment = 0;
  bool operator==(const Preemption&) const = default;
};

struct Decision {
  std::vector<Allocation> grants;       // new allocations, in the order granted
  std::vector<Preemption> preemptions;  // trials newly asked to leave
};

}  // namespace volador::scheduling
