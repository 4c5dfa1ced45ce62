#pragma once
// What one scheduling decision says to do.

#include <cstdint>
#include <optional>
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
  // A trial waits that no running trial may make room for now, and this is
  // when the first running trial that may, once it has run its minimum
  // time, will have (the clock's milliseconds, later than the decision):
  // the caller decides again then. None: no trial waits on a minimum run.
  std::optional<std::int64_t> decide_again_at_ms;
};

}  // namespace volador::scheduling
