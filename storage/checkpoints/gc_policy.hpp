#pragma once
// Checkpoint garbage collection, Determined's policy: of an experiment's live
// checkpoints keep
//   - the save_experiment_best best across the experiment,
//   - for each trial its save_trial_best best and its save_trial_latest latest,
//   - every checkpoint the caller marks in_use (e.g. a running trial's resume point),
// and delete the rest. "Best" ranks by the searcher metric; a checkpoint
// without a (finite) metric ranks after every measured one and, as in
// Determined, is never kept by a "best" rule. Ties are broken
// deterministically: equal metrics prefer fewer batches, then the smaller
// trial id, then the smaller uuid; equal batches for "latest" prefer the
// smaller uuid. Pure: no I/O, thread-safe.

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "runtime/config/experiment_config.hpp"

namespace volador::checkpoints {

struct GcCandidate {
  std::string uuid;
  std::uint64_t trial_id = 0;
  std::uint64_t batches = 0;    // batches trained when the checkpoint was taken
  std::optional<double> metric;  // the searcher metric validated at `batches`, if any
  bool in_use = false;          // never deleted
};

struct GcPolicy {
  std::uint32_t save_experiment_best = 0;
  std::uint32_t save_trial_best = 1;
  std::uint32_t save_trial_latest = 1;
  bool smaller_is_better = true;

  // The experiment's numbers (the defaults above when checkpoint_storage is
  // absent) and its searcher's direction.
  static GcPolicy of(const config::ExperimentConfig& config);
};

// Whether `c` has a finite metric: only such a checkpoint is ranked, and kept, by a "best" rule.
bool is_measured(const GcCandidate& c);

// Whether measured `a` ranks before measured `b` as "best" (the order, ties
// included, that checkpoints_to_delete ranks by).
bool ranks_better(const GcCandidate& a, const GcCandidate& b, bool smaller_is_better);

// The uuids of `checkpoints` to delete under `policy`.
std::set<std::string> checkpoints_to_delete(std::span<const GcCandidate> checkpoints, const GcPolicy& policy);

}  // namespace volador::checkpoints
