#include "storage/journal/journal.hpp"

#include <chrono>

#include <utility>

namespace volador::storage {

JournalBatch& JournalBatch::add(Operation operation) {
  operations_.push_back(std::move(operation));
  return *this;
}

JournalBatch& JournalBatch::put_experiment(ExperimentRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_trial(TrialRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_searcher_state(std::uint64_t experiment_id, nlohmann::json state) {
  return add(SearcherStatePut{.experiment_id = experiment_id, .state = std::move(state)});
}

JournalBatch& JournalBatch::put_checkpoint(CheckpointRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::append_metrics(MetricRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches) {
  return add(MetricsDeletion{.trial_id = trial_id, .after_batches = batches});
}

JournalBatch& JournalBatch::put_user(UserRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_token(TokenRecord record) { return add(std::move(record)); }

Status Journal::commit(const JournalBatch& batch) {
  const auto started = std::chrono::steady_clock::now();
  auto written = write(batch);
  if (written && !batch.empty()) stats_.record(batch, std::chrono::steady_clock::now() - started);
  return written;
}

Status Journal::put_user(const UserRecord& record) { return commit(JournalBatch().put_user(record)); }
Status Journal::put_token(const TokenRecord& record) { return commit(JournalBatch().put_token(record)); }
Status Journal::put_experiment(const ExperimentRecord& record) { return commit(JournalBatch().put_experiment(record)); }
Status Journal::put_trial(const TrialRecord& record) { return commit(JournalBatch().put_trial(record)); }
Status Journal::append_metrics(const MetricRecord& record) { return commit(JournalBatch().append_metrics(record)); }
Status Journal::put_checkpoint(const CheckpointRecord& record) { return commit(JournalBatch().put_checkpoint(record)); }

Status Journal::delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches) {
  return commit(JournalBatch().delete_metrics_after(trial_id, batches));
}

Status Journal::put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) {
  return commit(JournalBatch().put_searcher_state(experiment_id, state));
}

}  // namespace volador::storage
