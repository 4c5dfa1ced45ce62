// Driving a run's train, validate and checkpoint workloads on its ranks.
#include "actors/trial_internal.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::actors::trial_internal {
namespace {

// A workload is bounded by the trial's own code; rank death is seen through
// monitors, so this only guards against a hung, still-connected worker.
constexpr auto kWorkloadTimeout = std::chrono::seconds(24 * 3600);

void journal_metrics(Self self, storage::MetricKind kind, const MetricMap& metrics) {
  journal_metrics_at(self, kind, self->state.progress.batches_trained, metrics);
}

// The answers of the ranks a workload went to, until all have answered.
struct WorkloadAnswers {
  explicit WorkloadAnswers(std::size_t ranks) : results(ranks) {}
  std::vector<wire::WorkloadResult> results;
  std::size_t missing = results.size();
  bool done = false;  // answered early: a command failed on one rank
};

// What the trial makes of every rank's answer: rank 0's result (its metrics
// are already averaged over ranks), or the first rank's error.
wire::WorkloadResult combine(std::vector<wire::WorkloadResult> results) {
  for (std::size_t r = 0; r < results.size(); ++r)
    if (!results[r].error_message.empty()) {
      if (results.size() > 1) results[r].error_message = fmt::format("rank {}: {}", r, results[r].error_message);
      return std::move(results[r]);
    }
  return std::move(results.front());
}

void run_workload(Self self, const training::Workload& workload) {
  const auto kind = workload.kind == training::WorkloadKind::train ? wire::WorkloadKind::train : wire::WorkloadKind::validate;
  const auto all_ranks = self->state.ranks.size();
  send_workload(self, {kind, workload.start_batch, workload.batches, "", ""}, all_ranks, [=](const wire::WorkloadResult& result) {
    if (complete_workload(self, workload, result)) drive(self);
  });
}

// Journals a committed checkpoint and tells the experiment (which applies GC).
// Only a `scheduled` one (the plan's) restarts the plan's periodic count.
void register_checkpoint(Self self, const std::string& uuid, std::uint64_t total_bytes, bool scheduled) {
  auto& st = self->state;
  const bool validated_here = st.progress.last_validation_at == static_cast<std::int64_t>(st.progress.batches_trained);
  storage::CheckpointRecord checkpoint{uuid, record(self).experiment_id, record(self).id, st.progress.batches_trained,
                                       record(self).run_id, validated_here ? st.last_validation : MetricMap{},
                                       storage::CheckpointState::active, total_bytes, now_ms(), scheduled};
  st.newest_checkpoint_at = static_cast<std::int64_t>(st.progress.batches_trained);
  if (scheduled) st.progress.last_checkpoint_at = st.newest_checkpoint_at;
  auto committed = st.context.journal->commit(storage::JournalBatch().put_checkpoint(checkpoint).put_trial(record(self)));
  journal_status(self, committed, "a checkpoint");
  self->send(st.experiment, checkpointed_atom::value, record(self).request_id);
}

void run_checkpoint(Self self, bool scheduled) {
  auto& st = self->state;
  auto uuid = checkpoints::new_uuid();
  auto pending = uuid ? st.spec.store->begin(*uuid) : Result<checkpoints::PendingCheckpoint>(fail(uuid.error()));
  if (!pending) return end_trial(self, RunState::error, "checkpoint failed: " + pending.error().message);
  const auto batches = st.progress.batches_trained;
  // Every rank holds the same model: rank 0 alone writes it.
  send_workload(self, {wire::WorkloadKind::checkpoint, batches, 0, pending->dir.string(), ""}, 1,
                [=, pending = *pending](const wire::WorkloadResult& result) {
                  auto& store = *self->state.spec.store;
                  if (!result.error_message.empty()) {
                    if (auto aborted = store.abort(pending); !aborted)
                      spdlog::warn("trial {}: removing the unfinished checkpoint {} failed (swept at the next start): {}",
                                   record(self).id, pending.uuid, aborted.error().message);
                    return restart(self, "trial code failed: " + result.error_message, true);
                  }
                  auto manifest = store.commit(pending);
                  if (!manifest) return end_trial(self, RunState::error, "checkpoint failed: " + manifest.error().message);
                  register_checkpoint(self, pending.uuid, manifest->total_bytes, scheduled);
                  drive(self);
                });
}

bool checkpointed_here(const TrialState& st) {
  return st.newest_checkpoint_at == static_cast<std::int64_t>(st.progress.batches_trained);
}

// Whether the plan itself would checkpoint where the trial stands now.
bool plan_checkpoints_here(const TrialState& st) {
  return st.target_batches > 0 &&
         training::next_workload(st.policy, st.progress, st.target_batches).kind == training::WorkloadKind::checkpoint;
}

}  // namespace

void journal_metrics_at(Self self, storage::MetricKind kind, std::uint64_t batches, const MetricMap& metrics) {
  storage::MetricRecord m{record(self).id, kind, batches, metrics, now_ms()};
  journal_status(self, self->state.context.journal->append_metrics(m), "metrics");
}

std::string metric_names(const MetricMap& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

bool complete_workload(Self self, const training::Workload& workload, const wire::WorkloadResult& result) {
  auto& st = self->state;
  if (!result.error_message.empty()) {
    restart(self, "trial code failed: " + result.error_message, true);
    return false;
  }
  mark_run_live(self);
  const bool validation = workload.kind == training::WorkloadKind::validate;
  st.progress = training::record_completed(st.progress, workload, validation && is_new_best(st, result.metrics));
  st.spec.record.batches_trained = st.progress.batches_trained;
  if (!validation) {
    // One batch: a restarted master tells from the record whether the metrics are in.
    storage::MetricRecord metrics{record(self).id, storage::MetricKind::training, st.progress.batches_trained,
                                  result.metrics, now_ms()};
    auto committed = st.context.journal->commit(storage::JournalBatch().append_metrics(metrics).put_trial(record(self)));
    journal_status(self, committed, "training metrics");
    return true;
  }
  journal_metrics(self, storage::MetricKind::validation, result.metrics);
  st.last_validation = result.metrics;
  // Every validation goes to the searcher: periodic ones feed goals and early stopping.
  const auto& metric = st.spec.config->searcher.metric;
  auto it = result.metrics.find(metric);
  if (it == result.metrics.end()) {
    end_trial(self, RunState::error,
              "validation did not report the searcher metric '" + metric + "' (reported: " +
                  metric_names(result.metrics) + ")");
    return false;
  }
  self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, st.progress.batches_trained);
  return true;
}

void send_workload(Self self, const wire::WorkloadRequest& request, std::size_t ranks,
                   std::function<void(wire::WorkloadResult)> done) {
  const bool fail_fast = request.kind == wire::WorkloadKind::run && ranks > 1;
  self->state.workload_in_flight = true;
  const auto run_id = record(self).run_id;
  auto answers = std::make_shared<WorkloadAnswers>(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    self->request(self->state.ranks[r].worker, kWorkloadTimeout, workload_atom::value, wire::encode(request))
        .then(
            [=](const wire::Bytes& bytes) {
              // A restart leaves the phase before the next launch renumbers the run.
              if (self->state.phase != Phase::running || record(self).run_id != run_id || answers->done) return;
              auto result = wire::decode<wire::WorkloadResult>(bytes);
              if (!result) return end_trial(self, RunState::error, result.error().message);
              if (fail_fast && !result->error_message.empty()) {
                answers->done = true;
                self->state.workload_in_flight = false;
                result->error_message = fmt::format("rank {}: {}", r, result->error_message);
                return done(std::move(*result));
              }
              answers->results[r] = std::move(*result);
              if (--answers->missing > 0) return;
              self->state.workload_in_flight = false;
              done(combine(std::move(answers->results)));
            },
            [=](const caf::error& error) {
              // A rank that died is reported by its agent with the exit status.
              if (self->state.phase == Phase::running && record(self).run_id == run_id)
                spdlog::warn("trial {}: workload failed on rank {}: {}", record(self).id, r, from_caf_error(error).message);
            });
  }
}

void stop_ranks(Self self) {
  self->state.phase = Phase::stopping;
  for (auto& rank : self->state.ranks) {
    self->send(rank.worker, shutdown_atom::value);
    rank.worker = nullptr;  // lets the worker's actor system shut down without waiting for us
  }
}

void drive(Self self) {
  auto& st = self->state;
  if (st.phase != Phase::running) return;
  if (st.command) return drive_command(self);  // stops even while the command runs
  if (st.workload_in_flight) return;
  // Closed (even before its target: early stopping, a goal reached) or
  // paused: take a final checkpoint where it stands, then stop the rank.
  // That checkpoint leaves the plan's periodic count alone unless the plan
  // would take it anyway, so a resumed run reports where an uninterrupted one would.
  if (st.pause_requested || st.close_requested) {
    if (!checkpointed_here(st) && st.progress.batches_trained > 0) return run_checkpoint(self, plan_checkpoints_here(st));
    return stop_ranks(self);
  }
  if (st.target_batches == 0) return;
  auto workload = training::next_workload(st.policy, st.progress, st.target_batches);
  switch (workload.kind) {
    case training::WorkloadKind::done:
      return;
    case training::WorkloadKind::checkpoint:
      return run_checkpoint(self, true);
    default:
      return run_workload(self, workload);
  }
}

}  // namespace volador::actors::trial_internal
