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

// One report of rank 0's command, journaled as it comes.
void TrialRun::handle(const CommandReported& event) {
  const auto& report = event.report;
  if (!command_ || report.run_id != setup_.spec.record.run_id || report.rank != 0 || phase_ != Phase::running) return;
  auto& run = command_run_;
  const auto& metric = setup_.spec.config->searcher.metric;
  if (report.kind == wire::ReportKind::final_result) {
    run.reported[metric] = report.value;  // journaled at the target once the command exits
    return;
  }
  const auto batches = report.step ? *report.step : ++run.reports;
  if (report.kind == wire::ReportKind::loss)
    return journal_metrics_at(storage::MetricKind::training, batches, {{"loss", report.value}});
  const MetricMap metrics =
      report.kind == wire::ReportKind::intermediate ? MetricMap{{metric, report.value}} : report.metrics;
  for (const auto& [name, value] : metrics) run.reported[name] = value;
  // The validation at the target is the final result, journaled once when the command exits.
  if (batches >= target_batches_) return;
  journal_metrics_at(storage::MetricKind::validation, batches, metrics);
  // Intermediate results feed goals and early stopping; the target belongs to the final one.
  auto it = metrics.find(metric);
  if (it != metrics.end() && batches > run.forwarded_at && batches < target_batches_) {
    run.forwarded_at = batches;
    effects_.emplace_back(ReportValidation{setup_.spec.record.request_id, it->second, batches});
  }
}

}  // namespace volador::master
