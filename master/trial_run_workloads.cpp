// Driving a run's train, validate and checkpoint workloads on its ranks.
#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "master/trial_run.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::master {
namespace {

// What the trial makes of the ranks' results of one workload: rank 0's (its
// metrics are already averaged over ranks), or the first rank's error.
wire::WorkloadResult combine(std::vector<wire::WorkloadResult> results) {
  for (std::size_t r = 0; r < results.size(); ++r)
    if (!results[r].error_message.empty()) {
      if (results.size() > 1) results[r].error_message = fmt::format("rank {}: {}", r, results[r].error_message);
      return std::move(results[r]);
    }
  return std::move(results.front());
}

// Step `step` of a chain: 0 the request itself, k its then[k-1].
const wire::WorkloadRequest& step_request(const wire::WorkloadRequest& request, std::size_t step) {
  return step == 0 ? request : request.then[step - 1];
}

// A rank's result of step `step`, if it ran it.
const wire::WorkloadResult* step_result(const wire::WorkloadResult& answer, std::size_t step) {
  if (step == 0) return &answer;
  return step <= answer.then.size() ? &answer.then[step - 1] : nullptr;
}

// Step `step`'s result over the ranks it went to (share_of_rank); nullopt
// when one of them did not run it (an earlier step failed, or a rank
// answered its first workload alone).
std::optional<wire::WorkloadResult> combined_step(const wire::WorkloadRequest& request,
                                                  const std::vector<std::optional<wire::WorkloadResult>>& answers,
                                                  std::size_t step) {
  const bool rank_0_alone = step_request(request, step).kind == wire::WorkloadKind::checkpoint;
  std::vector<wire::WorkloadResult> results;
  for (std::size_t r = 0; r < (rank_0_alone ? 1 : answers.size()); ++r) {
    const auto* result = step_result(*answers[r], step);
    if (result == nullptr) return std::nullopt;
    results.push_back(*result);
    results.back().then.clear();
  }
  return combine(std::move(results));
}

wire::WorkloadRequest as_request(const training::Workload& workload) {
  switch (workload.kind) {
    case training::WorkloadKind::train: return {wire::WorkloadKind::train, workload.start_batch, workload.batches, "", ""};
    case training::WorkloadKind::validate: return {wire::WorkloadKind::validate, workload.start_batch, 0, "", ""};
    default: return {wire::WorkloadKind::checkpoint, workload.start_batch, 0, "", ""};
  }
}

}  // namespace

wire::WorkloadRequest share_of_rank(wire::WorkloadRequest request, std::uint32_t rank) {
  if (rank > 0)
    std::erase_if(request.then, [](const auto& step) { return step.kind == wire::WorkloadKind::checkpoint; });
  return request;
}

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
    in_flight_.reset();
    return finish_command_run(failed);
  }
  flight.results[event.rank] = event.result;
  if (!std::ranges::all_of(flight.results, [](const auto& result) { return result.has_value(); })) return;
  finish_workload(*std::exchange(in_flight_, std::nullopt));
}

// Takes each step of the chain the ranks ran, in order, up to one that failed
// or stopped the trial; a checkpoint folder no step filled is removed.
void TrialRun::finish_workload(InFlight done) {
  if (done.request.kind == wire::WorkloadKind::run) return finish_command_run(*combined_step(done.request, done.results, 0));
  bool going_on = true;
  for (std::size_t step = 0; going_on && step <= done.request.then.size(); ++step) {
    auto result = combined_step(done.request, done.results, step);
    if (!result) break;
    const auto& request = step_request(done.request, step);
    going_on = request.kind == wire::WorkloadKind::checkpoint
                   ? commit_checkpoint(*std::exchange(done.checkpoint, std::nullopt), done.scheduled, *result)
                   : complete_workload(as_workload(request), *result);
  }
  if (done.checkpoint) abort_checkpoint(*done.checkpoint);
  if (going_on) drive();
}

void TrialRun::send_workload(const wire::WorkloadRequest& request, std::uint32_t ranks) {
  in_flight_ = InFlight{.number = ++workloads_sent_, .request = request, .results = std::vector<std::optional<wire::WorkloadResult>>(ranks)};
  effects_.emplace_back(SendWorkload{in_flight_->number, request, ranks});
}

// Sends the plan's `workload` to every rank, with the plan's workloads that
// follow it as its chain when every rank runs chains: the one planned for
// the launch when it is that (its rank runs it already).
void TrialRun::send_planned(const training::Workload& workload) {
  const bool chains = std::ranges::all_of(ranks_, &Rank::runs_chains);
  if (launched_plan_ && !(chains && plans_the_same(launched_plan_->request, workload))) drop_launched_plan();
  auto planned = launched_plan_ ? *std::exchange(launched_plan_, std::nullopt) : plan(workload, chains);
  send_workload(planned.request, static_cast<std::uint32_t>(ranks_.size()));
  in_flight_->checkpoint = std::move(planned.checkpoint);
  in_flight_->scheduled = true;
}

TrialRun::PlannedWorkload TrialRun::plan(const training::Workload& workload, bool chains) {
  PlannedWorkload planned{as_request(workload), std::nullopt};
  if (!chains) return planned;
  for (const auto& next : training::follow_ups(policy_, progress_, target_batches_, workload)) {
    auto step = as_request(next);
    if (next.kind == training::WorkloadKind::checkpoint) {
      auto pending = begin_checkpoint();
      if (!pending) break;  // the checkpoint goes alone, and fails the trial then
      step.path = pending->dir.string();
      planned.checkpoint = std::move(*pending);
    }
    planned.request.then.push_back(std::move(step));
  }
  return planned;
}

bool TrialRun::plans_the_same(const wire::WorkloadRequest& request, const training::Workload& workload) const {
  const auto follow_ups = training::follow_ups(policy_, progress_, target_batches_, workload);
  return as_workload(request) == workload && request.then.size() == follow_ups.size() &&
         std::ranges::equal(request.then, follow_ups, {}, as_workload);
}

void TrialRun::drop_launched_plan() {
  if (auto launched = std::exchange(launched_plan_, std::nullopt); launched && launched->checkpoint)
    abort_checkpoint(*launched->checkpoint);
}

Result<checkpoints::PendingCheckpoint> TrialRun::begin_checkpoint() {
  auto uuid = checkpoints::new_uuid();
  if (!uuid) return fail(uuid.error());
  return setup_.spec.store->begin(*uuid);
}

void TrialRun::run_checkpoint(bool scheduled) {
  auto pending = begin_checkpoint();
  if (!pending) return end_trial(RunState::error, "checkpoint failed: " + pending.error().message);
  // Every rank holds the same model: rank 0 alone writes it.
  send_workload({wire::WorkloadKind::checkpoint, progress_.batches_trained, 0, pending->dir.string(), ""}, 1);
  in_flight_->checkpoint = *pending;
  in_flight_->scheduled = scheduled;
}

void TrialRun::abort_checkpoint(const checkpoints::PendingCheckpoint& pending) {
  if (auto aborted = setup_.spec.store->abort(pending); !aborted)
    spdlog::warn("trial {}: removing the unfinished checkpoint {} failed (swept at the next start): {}",
                 setup_.spec.record.id, pending.uuid, aborted.error().message);
}

bool TrialRun::commit_checkpoint(const checkpoints::PendingCheckpoint& pending, bool scheduled,
                                 const wire::WorkloadResult& result) {
  if (!result.error_message.empty()) {
    abort_checkpoint(pending);
    restart("trial code failed: " + result.error_message, true);
    return false;
  }
  auto manifest = setup_.spec.store->commit(pending);
  if (!manifest) {
    end_trial(RunState::error, "checkpoint failed: " + manifest.error().message);
    return false;
  }
  register_checkpoint(pending.uuid, manifest->total_bytes, scheduled);
  return true;
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
      // Parked, or done with all it will ever train: the slots go back now,
      // not once the searcher decides; its close then completes the trial.
      if (std::exchange(park_requested_, false) || done_at_max_length()) {
        parking_ = true;
        return stop_ranks();
      }
      return;
    case training::WorkloadKind::checkpoint: return run_checkpoint(true);
    case training::WorkloadKind::train:
    case training::WorkloadKind::validate: return send_planned(workload);
  }
}

}  // namespace volador::master
