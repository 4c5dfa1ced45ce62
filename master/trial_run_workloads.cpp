// Driving a run's train, validate and checkpoint workloads on its ranks.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "master/trial_run.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::master {
namespace {

// What the trial makes of every rank's answer: rank 0's result (its metrics
// are already averaged over ranks), or the first rank's error.
wire::WorkloadResult combine(std::vector<std::optional<wire::WorkloadResult>> results) {
  for (std::size_t r = 0; r < results.size(); ++r)
    if (!results[r]->error_message.empty()) {
      if (results.size() > 1) results[r]->error_message = fmt::format("rank {}: {}", r, results[r]->error_message);
      return std::move(*results[r]);
    }
  return std::move(*results.front());
}

}  // namespace

training::Workload as_workload(const wire::WorkloadRequest& request) {
  switch (request.kind) {
    case wire::WorkloadKind::train: return {training::WorkloadKind::train, request.batches, request.start_batch};
    case wire::WorkloadKind::validate: return {training::WorkloadKind::validate, 0, request.start_batch};
    default: return {training::WorkloadKind::checkpoint, 0, request.start_batch};
  }
}

// Each rank's answer; the workload is done once all have answered, or at a
// command's first error (its peers may wait on the failed rank for long:
// torch.distributed's timeouts are long).
void TrialRun::handle(const WorkloadAnswered& event) {
  if (phase_ != Phase::running || !in_flight_ || event.workload != in_flight_->number ||
      event.rank >= in_flight_->results.size())
    return;
  if (!take_answered_reports(event.rank, event.result)) return;
  auto& flight = *in_flight_;
  const bool fail_fast = flight.request.kind == wire::WorkloadKind::run && flight.results.size() > 1;
  if (fail_fast && !event.result.error_message.empty()) {
    auto failed = event.result;
    failed.error_message = fmt::format("rank {}: {}", event.rank, failed.error_message);
    return finish_workload(*std::exchange(in_flight_, std::nullopt), failed);
  }
  flight.results[event.rank] = event.result;
  if (!std::ranges::all_of(flight.results, [](const auto& result) { return result.has_value(); })) return;
  auto done = *std::exchange(in_flight_, std::nullopt);
  finish_workload(done, combine(done.results));
}

void TrialRun::finish_workload(const InFlight& done, const wire::WorkloadResult& result) {
  switch (done.request.kind) {
    case wire::WorkloadKind::checkpoint: return finish_checkpoint(done, result);
    case wire::WorkloadKind::run: return finish_command_run(result);
    default:
      if (complete_workload(as_workload(done.request), result)) drive();
  }
}

void TrialRun::send_workload(const wire::WorkloadRequest& request, std::uint32_t ranks) {
  in_flight_ = InFlight{.number = ++workloads_sent_, .request = request, .results = std::vector<std::optional<wire::WorkloadResult>>(ranks)};
  effects_.emplace_back(SendWorkload{in_flight_->number, request, ranks});
}

void TrialRun::run_checkpoint(bool scheduled) {
  auto uuid = checkpoints::new_uuid();
  auto pending = uuid ? setup_.spec.store->begin(*uuid) : Result<checkpoints::PendingCheckpoint>(fail(uuid.error()));
  if (!pending) return end_trial(RunState::error, "checkpoint failed: " + pending.error().message);
  // Every rank holds the same model: rank 0 alone writes it.
  send_workload({wire::WorkloadKind::checkpoint, progress_.batches_trained, 0, pending->dir.string(), ""}, 1);
  in_flight_->checkpoint = *pending;
  in_flight_->scheduled = scheduled;
}

void TrialRun::finish_checkpoint(const InFlight& done, const wire::WorkloadResult& result) {
  auto& store = *setup_.spec.store;
  const auto& pending = *done.checkpoint;
  if (!result.error_message.empty()) {
    if (auto aborted = store.abort(pending); !aborted)
      spdlog::warn("trial {}: removing the unfinished checkpoint {} failed (swept at the next start): {}",
                   setup_.spec.record.id, pending.uuid, aborted.error().message);
    return restart("trial code failed: " + result.error_message, true);
  }
  auto manifest = store.commit(pending);
  if (!manifest) return end_trial(RunState::error, "checkpoint failed: " + manifest.error().message);
  register_checkpoint(pending.uuid, manifest->total_bytes, done.scheduled);
  drive();
}

// Journals a committed checkpoint and tells the experiment (which applies GC).
// Only a `scheduled` one (the plan's) restarts the plan's periodic count.
void TrialRun::register_checkpoint(const std::string& uuid, std::uint64_t total_bytes, bool scheduled) {
  const auto& r = setup_.spec.record;
  const auto batches = progress_.batches_trained;
  const bool validated_here = progress_.last_validation_at == static_cast<std::int64_t>(batches);
  storage::CheckpointRecord checkpoint{uuid, r.experiment_id, r.id, batches, r.run_id,
                                       validated_here ? last_validation_ : MetricMap{},
                                       storage::CheckpointState::active, total_bytes, setup_.clock(), scheduled};
  newest_checkpoint_at_ = static_cast<std::int64_t>(batches);
  if (scheduled) progress_.last_checkpoint_at = newest_checkpoint_at_;
  journal_writes_.put_checkpoint(checkpoint);
  save_record();
  effects_.emplace_back(ReportCheckpoint{r.request_id});
  if (validated_here && batches == target_batches_) report_last_validation();  // held for this checkpoint
}

void TrialRun::journal_metrics_at(storage::MetricKind kind, std::uint64_t batches, const MetricMap& metrics) {
  storage::MetricRecord m{setup_.spec.record.id, kind, batches, metrics, setup_.clock()};
  journal_writes_.append_metrics(m);
}

bool TrialRun::complete_workload(const training::Workload& workload, const wire::WorkloadResult& result) {
  if (!result.error_message.empty()) {
    restart("trial code failed: " + result.error_message, true);
    return false;
  }
  mark_run_live();
  const bool validation = workload.kind == training::WorkloadKind::validate;
  progress_ = training::record_completed(progress_, workload, validation && is_new_best(result.metrics));
  setup_.spec.record.batches_trained = progress_.batches_trained;
  if (!validation) {
    // One batch: a restarted master tells from the record whether the metrics are in.
    storage::MetricRecord metrics{setup_.spec.record.id, storage::MetricKind::training, progress_.batches_trained,
                                  result.metrics, setup_.clock()};
    journal_writes_.append_metrics(metrics);
    save_record();
    return true;
  }
  journal_metrics_at(storage::MetricKind::validation, progress_.batches_trained, result.metrics);
  last_validation_ = result.metrics;
  // Every validation goes to the searcher: periodic ones feed goals and
  // early stopping. The one at the target waits for the checkpoint there
  // (register_checkpoint): a searcher may start another trial from it.
  const auto& metric = setup_.spec.config->searcher.metric;
  if (!result.metrics.contains(metric)) {
    end_trial(RunState::error, "validation did not report the searcher metric '" + metric +
                                   "' (reported: " + metric_names(result.metrics) + ")");
    return false;
  }
  if (progress_.batches_trained != target_batches_ || checkpointed_here()) report_last_validation();
  return true;
}

// Journals the run as live once a workload was answered (every rank has its
// group by then): from now on a restarted master looks for the run before
// restarting it. Saves the record the first time.
void TrialRun::mark_run_live() {
  if (!setup_.spec.record.run_agents.empty()) return;
  setup_.spec.record.run_token = token_;
  setup_.spec.record.run_agents = agent_ids_;
  save_record();
}

// Tells every rank to shut down, and gives the slots back: their agents
// start the next rank on each once this one lets go. Their clean exits complete the stop.
void TrialRun::stop_ranks() {
  phase_ = Phase::stopping;
  effects_.emplace_back(ShutdownRanks{});
  effects_.emplace_back(ReleaseSlots{});
  slots_given_back_ = true;
}

bool TrialRun::checkpointed_here() const {
  return newest_checkpoint_at_ == static_cast<std::int64_t>(progress_.batches_trained);
}

// Whether the plan itself would checkpoint where the trial stands now.
bool TrialRun::plan_checkpoints_here() const {
  return target_batches_ > 0 &&
         training::next_workload(policy_, progress_, target_batches_).kind == training::WorkloadKind::checkpoint;
}

// Sends the next workload, if the run is idle and has one.
void TrialRun::drive() {
  if (phase_ != Phase::running) return;
  if (command_) return drive_command();  // stops even while the command runs
  if (in_flight_) return;
  // Closed (even before its target: early stopping, a goal reached) or
  // paused: take a final checkpoint where it stands, then stop the ranks.
  // That checkpoint leaves the plan's periodic count alone unless the plan
  // would take it anyway, so a resumed run reports where an uninterrupted one would.
  if (pause_requested_ || close_requested_) {
    if (!checkpointed_here() && progress_.batches_trained > 0) return run_checkpoint(plan_checkpoints_here());
    return stop_ranks();
  }
  if (target_batches_ == 0) return;
  const auto workload = training::next_workload(policy_, progress_, target_batches_);
  switch (workload.kind) {
    case training::WorkloadKind::done:
      if (std::exchange(park_requested_, false)) {
        parking_ = true;
        return stop_ranks();
      }
      return;
    case training::WorkloadKind::checkpoint: return run_checkpoint(true);
    case training::WorkloadKind::train:
      return send_workload({wire::WorkloadKind::train, workload.start_batch, workload.batches, "", ""},
                           static_cast<std::uint32_t>(ranks_.size()));
    case training::WorkloadKind::validate:
      return send_workload({wire::WorkloadKind::validate, workload.start_batch, workload.batches, "", ""},
                           static_cast<std::uint32_t>(ranks_.size()));
  }
}

}  // namespace volador::master
