#pragma once
// The sequence of workloads a trial runs: train up to scheduling_unit batches,
// validate every min_validation_period, checkpoint every min_checkpoint_period,
// always validate and then checkpoint at the target the searcher asked for.
// Pure: the trial actor keeps a Progress and asks for the next workload after
// each one completes; a later, larger target continues from that Progress.

#include <cstdint>

#include "runtime/config/experiment_config.hpp"

namespace volador::training {

struct SchedulePolicy {
  std::uint64_t scheduling_unit = 100;     // batches per train workload, > 0
  std::uint64_t validation_period = 0;     // batches; 0 = only the final validation
  std::uint64_t checkpoint_period = 0;     // batches; 0 = none until the target
  bool initial_validation = false;         // validate before any training
};

// Builds the policy from a config (periods converted with to_batches).
SchedulePolicy make_schedule_policy(const config::ExperimentConfig& config);

// What a trial has done so far; updated by record_completed().
struct Progress {
  std::uint64_t batches_trained = 0;
  std::int64_t last_validation_at = -1;  // batches_trained at the last validation, -1 = none
  std::int64_t last_checkpoint_at = -1;
};

enum class WorkloadKind { train, validate, checkpoint, done };

struct Workload {
  WorkloadKind kind = WorkloadKind::done;
  std::uint64_t batches = 0;        // train: how many batches to run
  std::uint64_t start_batch = 0;    // batches_trained when it starts (train: the first batch's index)
};

// The next workload to reach `target_batches` (> 0, the length the searcher
// asked for). Order: an initial validation (if asked) before any training;
// periodic validation then checkpoint when their period has passed since the
// last one (any validation or checkpoint restarts the count); at the target a
// validation and a checkpoint unless one already happened at that batch count;
// then `done`. Train workloads never cross a due point or the target.
Workload next_workload(const SchedulePolicy& policy, const Progress& progress,
                       std::uint64_t target_batches);

// Progress after `workload` completed.
Progress record_completed(Progress progress, const Workload& workload);

}  // namespace volador::training
