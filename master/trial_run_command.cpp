// Command entrypoints: one `run` workload per run, and the reports of rank 0.
#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "master/trial_run.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::master {

// Stops at once on a pause or close: the command's checkpoints are the ones it made.
void TrialRun::drive_command() {
  if (pause_requested_ || close_requested_) return stop_ranks();
  if (target_batches_ == 0 || in_flight_) return;
  if (!command_run_.finished) {
    if (!command_run_.request && !start_command_run()) return;
    return send_workload(*command_run_.request, static_cast<std::uint32_t>(ranks_.size()));
  }
  // Done, and the searcher asks for more: the command's result does not change.
  report_command_at_target();
}

// The run's `run` request, made once: its staging folder (reserved: rank 0
// makes it at its first capture, as most commands save none), and its
// reports numbered on from the resume point.
bool TrialRun::start_command_run() {
  auto uuid = checkpoints::new_uuid();
  auto staging = uuid ? setup_.spec.store->reserve(*uuid) : Result<checkpoints::PendingCheckpoint>(fail(uuid.error()));
  if (!staging) {
    end_trial(RunState::error, "checkpoint storage: cannot make the command's staging folder: " + staging.error().message);
    return false;
  }
  command_run_.staging = std::move(*staging);
  const auto resumed_at = static_cast<std::uint64_t>(std::max<std::int64_t>(newest_checkpoint_at_, 0));
  command_run_.reports = command_run_.position = command_run_.forwarded_at = resumed_at;
  command_run_.request = wire::WorkloadRequest{wire::WorkloadKind::run, 0, target_batches_,
                                               command_run_.staging->dir.string(),
                                               setup_.spec.config->metrics_collector.format, true};
  return true;
}

// Removes the run's staging folder and what is left in it (captures not reported).
void TrialRun::drop_command_staging() {
  if (!command_run_.staging) return;
  if (auto aborted = setup_.spec.store->abort(*command_run_.staging); !aborted)
    spdlog::warn("trial {}: removing the command's staging folder failed: {}", setup_.spec.record.id,
                 aborted.error().message);
  command_run_.staging.reset();
  command_run_.request.reset();
}

// Every report, checkpoints included, was taken in before the answer or with
// it. A command that ran to completion needs its ranks no more: they stop and
// the slots go back at once, before the searcher decides (the next trial's
// launch need not wait for it), then its result goes to the searcher.
void TrialRun::finish_command_run(const wire::WorkloadResult& result) {
  drop_command_staging();
  if (!result.error_message.empty()) return restart("the command failed: " + result.error_message, true);
  stop_ranks();
  finish_command();
}

// The ranks of a command that ran to completion stopped: the trial waits
// without slots for the searcher, whose close completes it and whose further
// targets get the same result (report_command_at_target).
bool TrialRun::await_search_after_command() {
  if (!command_ || !command_run_.finished || close_requested_ || pause_requested_) return false;
  forget_run();
  phase_ = Phase::idle;
  report_command_at_target();
  return true;
}

// A finished command's result at a target past it: the command does not run again.
void TrialRun::report_command_at_target() {
  if (target_batches_ > progress_.batches_trained) finish_command();
}

// The command ran to completion: its latest metrics are the validation at the searcher's target.
void TrialRun::finish_command() {
  const auto& metric = setup_.spec.config->searcher.metric;
  const auto& final_metrics = command_run_.reported;
  auto it = final_metrics.find(metric);
  if (it == final_metrics.end())
    return end_trial(RunState::error, "the command finished without reporting the searcher metric '" + metric +
                                          "' (reported: " + metric_names(final_metrics) + "); print a line such as '" +
                                          metric + "=0.9' or call volador.reporting.report_final_result()");
  command_run_.finished = true;
  progress_.batches_trained = target_batches_;
  progress_.last_validation_at = static_cast<std::int64_t>(target_batches_);
  setup_.spec.record.batches_trained = target_batches_;
  journal_metrics_at(storage::MetricKind::validation, target_batches_, final_metrics);
  last_validation_ = final_metrics;
  is_new_best(final_metrics);
  save_record();
  system_log(fmt::format("the command finished: {} = {}", metric, it->second));
  effects_.emplace_back(ReportValidation{setup_.spec.record.request_id, it->second, target_batches_});
}

// A batch of rank 0's reports: taken in and handed to the journal's writer
// thread (JournalReports), acknowledged once written (ReportsJournaled), so
// that the rank's next batches are taken meanwhile and share the write. One
// taken before (its acknowledgement was lost with a link) is only
// acknowledged, as far as the journal goes, and so is one after a batch that
// has not come: the rank sends every unacknowledged batch again, in order,
// once relinked.
void TrialRun::handle(const CommandReported& event) {
  const auto& batch = event.batch;
  if (!command_ || batch.run_id != setup_.spec.record.run_id || batch.rank != 0 || phase_ != Phase::running) return;
  if (batch.seq != command_run_.taken_seq + 1) {
    if (batch.seq > command_run_.journaled_seq && batch.seq <= command_run_.taken_seq)
      effects_.emplace_back(AcknowledgeWhenJournaled{batch.seq});
    else
      effects_.emplace_back(AcknowledgeReports{command_run_.journaled_seq});
    return;
  }
  auto taken = take_report_batch(batch);
  if (!taken) return;
  unjournaled_[{batch.run_id, batch.seq}] = std::move(taken->waiting);
  // Queued after the event's own writes, which on() commits before its effects go out.
  effects_.emplace_back(JournalReports{batch.run_id, batch.seq,
                                       std::make_shared<const storage::JournalBatch>(std::move(taken->writes))});
}

std::optional<TrialRun::TakenReports> TrialRun::take_report_batch(const wire::MetricReports& batch) {
  CommandReportBatch taking{.run = command_run_, .taken = {}, .now_ms = setup_.clock(),
                            .newest_checkpoint_at = newest_checkpoint_at_};
  for (const auto& report : batch.reports) {
    if (report.kind != wire::ReportKind::checkpoint) {
      take_command_report(report, taking);
    } else if (auto taken_in = take_command_checkpoint(report, taking); !taken_in) {
      discard_checkpoints(taking.taken.waiting.checkpoints);
      end_trial(RunState::error, "checkpoint failed: " + taken_in.error().message);
      return std::nullopt;
    }
  }
  command_run_ = std::move(taking.run);
  command_run_.taken_seq = batch.seq;
  newest_checkpoint_at_ = taking.newest_checkpoint_at;
  return std::move(taking.taken);
}

bool TrialRun::answer_follows_reports(std::uint32_t rank, const wire::WorkloadResult& result) const {
  return !command_ || rank != 0 || !result.reports || result.reports->seq <= command_run_.taken_seq + 1;
}

// The answer's batch is never acknowledged: the rank keeps it in its answer,
// which a rejoin resends, and the trial takes an answer once. Its validation
// and checkpoints go to the experiment with the event's effects, after the
// write is queued (a journal read waits for it), as the run's result does.
bool TrialRun::take_answered_reports(std::uint32_t rank, const wire::WorkloadResult& result) {
  if (!command_ || rank != 0 || !result.reports) return true;
  if (!answer_follows_reports(rank, result)) {
    restart(fmt::format("rank 0 answered after report batch {}, but batch {} never came", result.reports->seq - 1,
                        command_run_.taken_seq + 1),
            false);
    return false;
  }
  if (result.reports->seq <= command_run_.taken_seq) return true;  // taken with an earlier copy of the answer
  auto taken = take_report_batch(*result.reports);
  if (!taken) return false;
  journal_writes_.append(std::move(taken->writes));
  if (taken->waiting.validation) effects_.emplace_back(*taken->waiting.validation);
  if (!taken->waiting.checkpoints.empty()) effects_.emplace_back(ReportCheckpoint{setup_.spec.record.request_id});
  return true;
}

// The batch is written: acknowledged (to a rank of the current run), then its
// latest validation and checkpoints go to the experiment. A failed write ends
// the trial: the batches taken after it counted on it.
void TrialRun::handle(const ReportsJournaled& event) {
  auto it = unjournaled_.find({event.run_id, event.seq});
  if (it == unjournaled_.end()) return;
  UnjournaledReports written = std::move(it->second);
  unjournaled_.erase(it);
  if (!event.error.empty()) {
    discard_checkpoints(written.checkpoints);
    return end_trial(RunState::error, "journaling the command's metrics failed: " + event.error);
  }
  if (event.run_id == setup_.spec.record.run_id) {
    command_run_.journaled_seq = event.seq;
    effects_.emplace_back(AcknowledgeReports{event.seq});
  }
  if (written.validation) effects_.emplace_back(*written.validation);
  if (!written.checkpoints.empty()) effects_.emplace_back(ReportCheckpoint{setup_.spec.record.request_id});
}

// Removes checkpoints a batch committed when the batch is not journaled: none is left unregistered.
void TrialRun::discard_checkpoints(const std::vector<std::string>& uuids) {
  for (const auto& uuid : uuids)
    if (auto removed = setup_.spec.store->remove(uuid); !removed)
      spdlog::warn("trial {}: removing the unregistered checkpoint {} failed: {}", setup_.spec.record.id, uuid,
                   removed.error().message);
}

// A capture of the command's checkpoint folder: committed from the run's
// staging folder and journaled with the batch, after the latest report
// (after the trial's newest checkpoint if no report came since), with the
// metrics reported so far. Errors: the store's (a missing capture, io).
Status TrialRun::take_command_checkpoint(const wire::MetricReport& report, CommandReportBatch& batch) {
  auto& store = *setup_.spec.store;
  if (!batch.run.staging) return fail(Error::internal("the run has no staging folder"));
  auto uuid = checkpoints::new_uuid();
  if (!uuid) return fail(uuid.error());
  auto pending = store.begin_from(*uuid, *batch.run.staging, report.checkpoint);
  if (!pending) return fail(pending.error());
  auto manifest = store.commit(*pending);
  if (!manifest) return fail(manifest.error());
  const auto& r = setup_.spec.record;
  batch.newest_checkpoint_at = std::max(static_cast<std::int64_t>(batch.run.position), batch.newest_checkpoint_at + 1);
  batch.taken.writes.put_checkpoint({*uuid, r.experiment_id, r.id,
                                     static_cast<std::uint64_t>(batch.newest_checkpoint_at), r.run_id,
                                     batch.run.reported, storage::CheckpointState::active, manifest->total_bytes,
                                     batch.now_ms, false});
  batch.taken.waiting.checkpoints.push_back(*uuid);
  return {};
}

// One report of the batch: its metrics (validation metrics at the script's
// step, or 1, 2, ... without one; losses as training metrics), journaled
// unless they are the final result, which the command's exit journals.
void TrialRun::take_command_report(const wire::MetricReport& report, CommandReportBatch& batch) const {
  auto& run = batch.run;
  const auto& metric = setup_.spec.config->searcher.metric;
  const auto trial_id = setup_.spec.record.id;
  if (report.kind == wire::ReportKind::final_result) {
    run.reported[metric] = report.value;
    return;
  }
  const auto batches = report.step ? *report.step : ++run.reports;
  run.position = std::max(run.position, batches);
  if (report.kind == wire::ReportKind::loss) {
    batch.taken.writes.append_metrics(
        {trial_id, storage::MetricKind::training, batches, {{"loss", report.value}}, batch.now_ms});
    return;
  }
  const MetricMap metrics =
      report.kind == wire::ReportKind::intermediate ? MetricMap{{metric, report.value}} : report.metrics;
  for (const auto& [name, value] : metrics) run.reported[name] = value;
  // The validation at the target is the final result, journaled once when the command exits.
  if (batches >= target_batches_) return;
  batch.taken.writes.append_metrics({trial_id, storage::MetricKind::validation, batches, metrics, batch.now_ms});
  // Intermediate results feed goals and early stopping; the target belongs to the final one.
  auto it = metrics.find(metric);
  if (it != metrics.end() && batches > run.forwarded_at) {
    run.forwarded_at = batches;
    batch.taken.waiting.validation = ReportValidation{setup_.spec.record.request_id, it->second, batches};
  }
}

}  // namespace volador::master
