// Command entrypoints: one `run` workload per run, and the reports of rank 0.
#include "actors/trial_internal.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors::trial_internal {
namespace {

// The command ran to completion: its latest metrics are the validation at the searcher's target.
void finish_command(Self self) {
  auto& st = self->state;
  const auto& metric = st.spec.config->searcher.metric;
  auto& final_metrics = st.command_run.reported;
  auto it = final_metrics.find(metric);
  if (it == final_metrics.end())
    return end_trial(self, RunState::error,
                     "the command finished without reporting the searcher metric '" + metric + "' (reported: " +
                         metric_names(final_metrics) + "); print a line such as '" + metric +
                         "=0.9' or call volador.reporting.report_final_result()");
  st.command_run.finished = true;
  st.progress.batches_trained = st.target_batches;
  st.progress.last_validation_at = static_cast<std::int64_t>(st.target_batches);
  st.spec.record.batches_trained = st.target_batches;
  journal_metrics_at(self, storage::MetricKind::validation, st.target_batches, final_metrics);
  st.last_validation = final_metrics;
  is_new_best(st, final_metrics);
  save_record(self);
  system_log(self, fmt::format("the command finished: {} = {}", metric, it->second));
  self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, st.target_batches);
}

void run_command(Self self) {
  auto& st = self->state;
  const wire::WorkloadRequest request{wire::WorkloadKind::run, 0, st.target_batches, "",
                                      st.spec.config->metrics_collector.format};
  send_workload(self, request, st.ranks.size(), [=](const wire::WorkloadResult& result) {
    if (!result.error_message.empty()) return restart(self, "the command failed: " + result.error_message, true);
    finish_command(self);
    drive(self);
  });
}

}  // namespace

void drive_command(Self self) {
  auto& st = self->state;
  if (st.pause_requested || st.close_requested) return stop_ranks(self);  // nothing to checkpoint
  if (st.target_batches == 0 || st.workload_in_flight) return;
  if (!st.command_run.finished) return run_command(self);
  // Done, and the searcher asks for more: the command's result does not change.
  if (st.target_batches > st.progress.batches_trained) finish_command(self);
}

void on_report(Self self, const wire::Bytes& bytes) {
  auto report = wire::decode<wire::MetricReport>(bytes);
  auto& st = self->state;
  if (!report || !st.command || report->run_id != record(self).run_id || report->rank != 0 || st.phase != Phase::running)
    return;
  auto& run = st.command_run;
  const auto& metric = st.spec.config->searcher.metric;
  if (report->kind == wire::ReportKind::final_result) {
    run.reported[metric] = report->value;  // journaled at the target once the command exits
    return;
  }
  const auto batches = report->step ? *report->step : ++run.reports;
  if (report->kind == wire::ReportKind::loss)
    return journal_metrics_at(self, storage::MetricKind::training, batches, {{"loss", report->value}});
  MetricMap metrics = report->kind == wire::ReportKind::intermediate ? MetricMap{{metric, report->value}}
                                                                     : std::move(report->metrics);
  for (const auto& [name, value] : metrics) run.reported[name] = value;
  // The validation at the target is the final result, journaled once when the command exits.
  if (batches >= st.target_batches) return;
  journal_metrics_at(self, storage::MetricKind::validation, batches, metrics);
  // Intermediate results feed goals and early stopping; the target belongs to the final one.
  auto it = metrics.find(metric);
  if (it != metrics.end() && batches > run.forwarded_at && batches < st.target_batches) {
    run.forwarded_at = batches;
    self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, batches);
  }
}

}  // namespace volador::actors::trial_internal
