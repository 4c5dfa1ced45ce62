#include "runtime/training/workload_plan.hpp"

#include <algorithm>
#include <limits>

#include "runtime/training/lengths.hpp"

namespace volador::training {
namespace {

constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

std::uint64_t period_batches(const std::optional<config::Length>& period, const config::ExperimentConfig& config) {
  return period ? to_batches(*period, config.global_batch_size, config.records_per_epoch) : 0;
}

// Batches left until a periodic event is due again (0 = due now); kNever without
// a period. Due implies it did not happen at batches_trained (period > 0).
std::uint64_t batches_until_due(std::uint64_t period, std::int64_t last_at, std::uint64_t batches_trained) {
  if (period == 0) return kNever;
  const std::uint64_t since = batches_trained - static_cast<std::uint64_t>(std::max<std::int64_t>(last_at, 0));
  return since >= period ? 0 : period - since;
}

bool happened_at(std::int64_t last_at, std::uint64_t batches_trained) {
  return last_at == static_cast<std::int64_t>(batches_trained);
}

// Whether the validation just done (at this batch count, after some training
// and not yet checkpointed) is one the checkpoint policy checkpoints after.
bool validation_wants_checkpoint(const SchedulePolicy& policy, const Progress& progress) {
  const std::uint64_t trained = progress.batches_trained;
  if (trained == 0 || !happened_at(progress.last_validation_at, trained) ||
      happened_at(progress.last_checkpoint_at, trained))
    return false;
  switch (policy.checkpoint_policy) {
    case config::CheckpointPolicy::all: return true;
    case config::CheckpointPolicy::best: return progress.last_validation_was_best;
    case config::CheckpointPolicy::none: return false;
  }
  return false;
}

}  // namespace

SchedulePolicy make_schedule_policy(const config::ExperimentConfig& config) {
  return {.scheduling_unit = std::max<std::uint64_t>(config.scheduling_unit, 1),
          .validation_period = period_batches(config.min_validation_period, config),
          .checkpoint_period = period_batches(config.min_checkpoint_period, config),
          .initial_validation = config.perform_initial_validation,
          .checkpoint_policy = config.checkpoint_policy};
}

Workload next_workload(const SchedulePolicy& policy, const Progress& progress, std::uint64_t target_batches) {
  const std::uint64_t trained = progress.batches_trained;
  auto at_current = [&](WorkloadKind kind) { return Workload{kind, 0, trained}; };

  if (policy.initial_validation && trained == 0 && progress.last_validation_at < 0)
    return at_current(WorkloadKind::validate);
  if (validation_wants_checkpoint(policy, progress)) return at_current(WorkloadKind::checkpoint);
  if (trained >= target_batches) {
    if (!happened_at(progress.last_validation_at, trained)) return at_current(WorkloadKind::validate);
    if (!happened_at(progress.last_checkpoint_at, trained)) return at_current(WorkloadKind::checkpoint);
    return at_current(WorkloadKind::done);
  }
  const std::uint64_t to_validation = batches_until_due(policy.validation_period, progress.last_validation_at, trained);
  const std::uint64_t to_checkpoint = batches_until_due(policy.checkpoint_period, progress.last_checkpoint_at, trained);
  if (to_validation == 0) return at_current(WorkloadKind::validate);
  if (to_checkpoint == 0) return at_current(WorkloadKind::checkpoint);
  const std::uint64_t batches =
      std::min({policy.scheduling_unit, target_batches - trained, to_validation, to_checkpoint});
  return Workload{WorkloadKind::train, batches, trained};
}

std::vector<Workload> follow_ups(const SchedulePolicy& policy, const Progress& progress,
                                 std::uint64_t target_batches, const Workload& first) {
  std::vector<Workload> chain;
  auto after = record_completed(progress, first);
  while (after.batches_trained >= target_batches) {
    const auto next = next_workload(policy, after, target_batches);
    if (next.kind == WorkloadKind::done) break;
    chain.push_back(next);
    after = record_completed(after, next);
  }
  return chain;
}

Progress record_completed(Progress progress, const Workload& workload, bool validation_was_best) {
  const auto at = static_cast<std::int64_t>(progress.batches_trained);
  switch (workload.kind) {
    case WorkloadKind::train: progress.batches_trained += workload.batches; break;
    case WorkloadKind::validate:
      progress.last_validation_at = at;
      progress.last_validation_was_best = validation_was_best;
      break;
    case WorkloadKind::checkpoint: progress.last_checkpoint_at = at; break;
    case WorkloadKind::done: break;
  }
  return progress;
}

}  // namespace volador::training
