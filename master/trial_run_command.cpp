// Command entrypoints: one `run` workload per run, and the reports of rank 0.
#include <fmt/format.h>

#include "master/trial_run.hpp"

namespace volador::master {

void TrialRun::drive_command() {
  if (pause_requested_ || close_requested_) return stop_ranks();  // nothing to checkpoint
  if (target_batches_ == 0 || in_flight_) return;
  if (!command_run_.finished)
    return send_workload({wire::WorkloadKind::run, 0, target_batches_, "", setup_.spec.config->metrics_collector.format},
                         static_cast<std::uint32_t>(ranks_.size()));
  // Done, and the searcher asks for more: the command's result does not change.
  if (target_batches_ > progress_.batches_trained) finish_command();
}

void TrialRun::finish_command_run(const wire::WorkloadResult& result) {
  if (!result.error_message.empty()) return restart("the command failed: " + result.error_message, true);
  finish_command();
  drive();
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

// A batch of rank 0's reports: journaled in one write, then acknowledged.
// One journaled before (its acknowledgement was lost with a link) is only
// acknowledged again, and so is one after a batch that has not come: the
// rank sends every unacknowledged batch again, in order, once relinked. A
// batch whose write fails is not acknowledged: the rank sends it again.
void TrialRun::handle(const CommandReported& event) {
  const auto& batch = event.batch;
  if (!command_ || batch.run_id != setup_.spec.record.run_id || batch.rank != 0 || phase_ != Phase::running) return;
  if (batch.seq != command_run_.journaled_seq + 1) {
    effects_.emplace_back(AcknowledgeReports{command_run_.journaled_seq});
    return;
  }
  CommandReportBatch taken{.run = command_run_, .writes = {}, .validation = std::nullopt, .now_ms = setup_.clock()};
  for (const auto& report : batch.reports) take_command_report(report, taken);
  if (!taken.writes.empty()) {
    if (auto committed = setup_.journal->commit(taken.writes); !committed) return journal_status(committed, "metrics");
  }
  command_run_ = std::move(taken.run);
  command_run_.journaled_seq = batch.seq;
  effects_.emplace_back(AcknowledgeReports{batch.seq});
  if (taken.validation) effects_.emplace_back(*taken.validation);
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
  if (report.kind == wire::ReportKind::loss) {
    batch.writes.append_metrics({trial_id, storage::MetricKind::training, batches, {{"loss", report.value}}, batch.now_ms});
    return;
  }
  const MetricMap metrics =
      report.kind == wire::ReportKind::intermediate ? MetricMap{{metric, report.value}} : report.metrics;
  for (const auto& [name, value] : metrics) run.reported[name] = value;
  // The validation at the target is the final result, journaled once when the command exits.
  if (batches >= target_batches_) return;
  batch.writes.append_metrics({trial_id, storage::MetricKind::validation, batches, metrics, batch.now_ms});
  // Intermediate results feed goals and early stopping; the target belongs to the final one.
  auto it = metrics.find(metric);
  if (it != metrics.end() && batches > run.forwarded_at) {
    run.forwarded_at = batches;
    batch.validation = ReportValidation{setup_.spec.record.request_id, it->second, batches};
  }
}

}  // namespace volador::master
