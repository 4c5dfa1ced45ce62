#pragma once
// The sequence of workloads a trial runs: train up to scheduling_unit batches,
// validate every min_validation_period, checkpoint every min_checkpoint_period
// and after the validations checkpoint_policy names, always validate and then
// checkpoint at the target the searcher asked for.
// Pure: the trial actor keeps a Progress and asks for the next workload after
// each one completes; a later, larger target continues from that Progress.

#include <cstdint>
#include <vector>

#include "runtime/config/experiment_config.hpp"

namespace volador::training {

struct SchedulePolicy {
  std::uint64_t scheduling_unit = 100;     // batches per train workload, > 0
  std::uint64_t validation_period = 0;     // batches; 0 = only the final validation
  std::uint64_t checkpoint_period = 0;     // batches; 0 = none until the target
  bool initial_validation = false;         // validate before any training
  config::CheckpointPolicy checkpoint_policy = config::CheckpointPolicy::best;  // which validations get a checkpoint
};

// Builds the policy from a config (periods converted with to_batches).
SchedulePolicy make_schedule_policy(const config::ExperimentConfig& config);

// What a trial has done so far; updated by record_completed().
struct Progress {
  std::uint64_t batches_trained = 0;
  std::int64_t last_validation_at = -1;  // batches_trained at the last validation, -1 = none
  std::int64_t last_checkpoint_at = -1;
  // The validation at last_validation_at beat all earlier ones. Read only until a
  // checkpoint follows it, so a Progress rebuilt at a checkpoint may leave it false.
  bool last_validation_was_best = false;
};

enum class WorkloadKind { train, validate, checkpoint, done };

struct Workload {
  WorkloadKind kind = WorkloadKind::done;
  std::uint64_t batches = 0;        // train: how many batches to run
  std::uint64_t start_batch = 0;    // batches_trained when it starts (train: the first batch's index)

  bool operator==(const Workload&) const = default;
};

// The next workload to reach `target_batches` (> 0, the length the searcher
// asked for). Order: an initial validation (if asked) before any training;
// a checkpoint right after a validation when checkpoint_policy asks for one
// (all: every validation; best: one with last_validation_was_best; none:
// never) and none was taken at that batch count, and never at batch 0;
// periodic validation then checkpoint when their period has passed since the
// last one (any validation or checkpoint restarts the count); at the target a
// validation and a checkpoint unless one already happened at that batch count,
// whatever the policy; then `done`. Train workloads never cross a due point or
// the target. Depends only on its arguments: a Progress rebuilt after a
// restart continues exactly as the one it replaces would have.
Workload next_workload(const SchedulePolicy& policy, const Progress& progress,
                       std::uint64_t target_batches);

// The workloads that follow `first` (next_workload's answer for `progress`)
// with no decision of the searcher between them: once `first` leaves the
// trial at the target, the validation and checkpoint the plan takes there
// (whatever the validation's metric). Empty when it leaves the trial short of
// the target. A rank may run them right after `first` (a chain).
std::vector<Workload> follow_ups(const SchedulePolicy& policy, const Progress& progress,
                                 std::uint64_t target_batches, const Workload& first);

// Progress after `workload` completed. For a validation, `validation_was_best`
// says whether its searcher metric beat (strictly, by smaller_is_better) every
// earlier validation of the trial, restarts included; the caller decides it.
// It is ignored for other workloads.
Progress record_completed(Progress progress, const Workload& workload, bool validation_was_best = false);

}  // namespace volador::training
