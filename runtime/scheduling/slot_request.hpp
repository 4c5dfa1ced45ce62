#pragma once
// What a trial asks the scheduler for, and what its experiment's
// `resources` section says about sharing: the pool its trials run in, their
// priority and their weight in the pool's fair share.

#include <cstdint>
#include <string>

#include "runtime/core/error.hpp"
#include "runtime/scheduling/placement.hpp"

namespace volador::scheduling {

using ExperimentId = std::uint64_t;

// The pool of agents that joined without naming one, and of experiments
// that name none.
inline const std::string kDefaultPool = "default";

// Determined's convention: 1 to 99, lower is more important.
inline constexpr int kMostImportantPriority = 1;
inline constexpr int kLeastImportantPriority = 99;
inline constexpr int kDefaultPriority = 42;

// How an experiment's trials share their pool (resources.resource_pool,
// resources.priority, resources.weight). Every trial of one experiment
// carries the same share; a request with a different one changes the
// experiment's (a priority or weight change applies to all its trials).
struct ExperimentShare {
  ExperimentId experiment_id = 0;
  std::string pool = kDefaultPool;
  int priority = kDefaultPriority;
  double weight = 1.0;  // > 0: the experiment's slots are in proportion to it within its pool and priority
  bool operator==(const ExperimentShare&) const = default;
};

// One trial's request: `slots` slots of one kind, all or none, on agents
// that run container images only when `needs_images` (environment.image:
// every trial of an experiment asks the same). Within an experiment, trials
// are served in creation order (ascending trial id).
struct SlotRequest {
  TrialId trial_id = 0;
  std::uint32_t slots = 1;
  ExperimentShare share;
  bool needs_images = false;
};

// invalid_argument, saying which field and why, when the pool name is
// empty, the priority is outside 1..99 or the weight is not a positive
// finite number.
Status validate_share(const ExperimentShare& share);

}  // namespace volador::scheduling
