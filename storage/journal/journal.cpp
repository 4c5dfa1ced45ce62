#include "storage/journal/journal.hpp"

#include <utility>

namespace volador::storage {

JournalBatch& JournalBatch::put_experiment(ExperimentRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
}

JournalBatch& JournalBatch::put_trial(TrialRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
}

JournalBatch& JournalBatch::put_searcher_state(std::uint64_t experiment_id, nlohmann::json state) {
  operations_.emplace_back(SearcherStatePut{.experiment_id = experiment_id, .state = std::move(state)});
  return *this;
}

JournalBatch& JournalBatch::put_checkpoint(CheckpointRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
}

JournalBatch& JournalBatch::append_metrics(MetricRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
}

JournalBatch& JournalBatch::delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches) {
  operations_.emplace_back(MetricsDeletion{.trial_id = trial_id, .after_batches = batches});
  return *this;
}

JournalBatch& JournalBatch::put_user(UserRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
}

JournalBatch& JournalBatch::put_token(TokenRecord record) {
  operations_.emplace_back(std::move(record));
  return *this;
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
