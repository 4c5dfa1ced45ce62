// Journal::write (Journal::commit): every operation of a JournalBatch into
// one KeyValueBatch, written at once. Nothing reaches the store before that
// write, so an operation that fails to encode leaves the journal untouched.

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "storage/journal/journal.hpp"
#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/journal_validation.hpp"

namespace volador::storage {

// Adds operations in order. Reads the store for what they build on (the
// last metric seq of a step, a replaced checkpoint's index entries) and
// remembers what earlier operations of the same batch added, which the
// store does not show yet. The caller holds lock_for(batch).
class Journal::BatchBuilder {
 public:
  BatchBuilder(const Journal& journal, KeyValueBatch& batch) : journal_(journal), batch_(batch) {}

  // What the journal refuses (journal_validation.hpp), encoding and read errors.
  Status add(const JournalBatch::Operation& operation) {
    if (auto valid = validation::check_operation(operation); !valid) return valid;
    return std::visit(*this, operation);
  }

  Status operator()(const ExperimentRecord& record) { return put_record(keys::experiment(record.id), record); }

  Status operator()(const TrialRecord& record) {
    auto value = codec::encode(record);
    if (!value) return fail(value.error());
    put(keys::trial(record.id), codec::bytes_of(*value));
    put(keys::trial_index(record.experiment_id, record.id), {});
    return {};
  }

  // The snapshot replaces the events it covers: they go, and their seqs start again from 1.
  Status operator()(const JournalBatch::SearcherStatePut& put_state) {
    auto value = codec::encode(SearcherStateRecord{.state = put_state.state});
    if (!value) return fail(value.error());
    put(keys::searcher_state(put_state.experiment_id), codec::bytes_of(*value));
    const std::string events = keys::search_events_prefix(put_state.experiment_id);
    batch_.erase_range(events, prefix_end(events));
    last_seq_[events] = 0;
    return {};
  }

  Status operator()(const JournalBatch::SearchEventAppend& append) {
    auto value = codec::encode(append.event);
    if (!value) return fail(value.error());
    auto seq = next_seq(keys::search_events_prefix(append.experiment_id));
    if (!seq) return fail(seq.error());
    put(keys::search_event(append.experiment_id, *seq), codec::bytes_of(*value));
    return {};
  }

  Status operator()(const MetricRecord& record) {
    auto value = codec::encode(record);
    if (!value) return fail(value.error());
    auto seq = next_seq(keys::metric_step_prefix(record.trial_id, record.kind, record.batches));
    if (!seq) return fail(seq.error());
    put(keys::metric(record.trial_id, record.kind, record.batches, *seq), codec::bytes_of(*value));
    return {};
  }

  Status operator()(const JournalBatch::MetricsDeletion& deletion) {
    for (MetricKind kind : {MetricKind::training, MetricKind::validation}) {
      const keys::KeyRange range = keys::metrics_after(deletion.trial_id, kind, deletion.after_batches);
      if (range.begin < range.end) batch_.erase_range(range.begin, range.end);
    }
    return {};
  }

  Status operator()(const UserRecord& record) { return put_record(keys::user(record.name), record); }
  Status operator()(const TokenRecord& record) { return put_record(keys::token(record.token_hash), record); }

  Status operator()(const CheckpointRecord& record) {
    auto value = codec::encode(record);
    if (!value) return fail(value.error());
    auto previous = previous_index_keys(record.uuid);
    if (!previous) return fail(previous.error());
    IndexKeys index{keys::checkpoint_experiment_index(record), keys::checkpoint_trial_index(record)};
    if (*previous && **previous != index) {
      batch_.erase((*previous)->of_experiment);
      batch_.erase((*previous)->of_trial);
    }
    put(keys::checkpoint(record.uuid), codec::bytes_of(*value));
    put(index.of_experiment, {});
    put(index.of_trial, {});
    checkpoints_[record.uuid] = std::move(index);
    return {};
  }

 private:
  struct IndexKeys {
    std::string of_experiment;
    std::string of_trial;
    bool operator==(const IndexKeys&) const = default;
  };

  void put(const std::string& key, std::string_view value) { batch_.put(key, std::string(value)); }

  // Puts the encoded `record` under `key` alone (no index).
  template <class Record>
  Status put_record(const std::string& key, const Record& record) {
    auto value = codec::encode(record);
    if (!value) return fail(value.error());
    put(key, codec::bytes_of(*value));
    return {};
  }

  // 1 + the last seq under `prefix` (a metric step, an experiment's search
  // events), counting what this batch added and deleted.
  Result<std::uint64_t> next_seq(const std::string& prefix) {
    auto last = last_seq_.find(prefix);
    if (last == last_seq_.end()) {
      auto stored = journal_.last_id_under(prefix);
      if (!stored) return fail(stored.error());
      last = last_seq_.emplace(prefix, *stored).first;
    }
    return ++last->second;
  }

  // The index keys of the checkpoint that a put of `uuid` replaces; nullopt for a new one.
  Result<std::optional<IndexKeys>> previous_index_keys(const std::string& uuid) const {
    if (auto added = checkpoints_.find(uuid); added != checkpoints_.end()) return added->second;
    const std::string key = keys::checkpoint(uuid);
    auto stored = journal_.get(key);
    if (!stored) return fail(stored.error());
    if (!*stored) return std::nullopt;
    auto record = codec::decode<CheckpointRecord>(key, **stored);
    if (!record) return fail(record.error());
    return IndexKeys{keys::checkpoint_experiment_index(*record), keys::checkpoint_trial_index(*record)};
  }

  const Journal& journal_;
  KeyValueBatch& batch_;
  std::map<std::string, std::uint64_t> last_seq_;  // by prefix
  std::map<std::string, IndexKeys> checkpoints_;           // by uuid
};

std::vector<std::unique_lock<std::mutex>> Journal::lock_for(const JournalBatch& batch) {
  bool checkpoints = false;
  std::set<std::uint64_t> searches;
  std::set<std::uint64_t> trials;
  for (const JournalBatch::Operation& operation : batch.operations()) {
    if (const auto* metrics = std::get_if<MetricRecord>(&operation)) trials.insert(metrics->trial_id);
    if (const auto* deletion = std::get_if<JournalBatch::MetricsDeletion>(&operation)) trials.insert(deletion->trial_id);
    if (const auto* event = std::get_if<JournalBatch::SearchEventAppend>(&operation)) searches.insert(event->experiment_id);
    if (const auto* snapshot = std::get_if<JournalBatch::SearcherStatePut>(&operation))
      searches.insert(snapshot->experiment_id);
    checkpoints = checkpoints || std::holds_alternative<CheckpointRecord>(operation);
  }
  std::vector<std::unique_lock<std::mutex>> locks;
  if (checkpoints) locks.emplace_back(checkpoints_mutex_);
  for (std::uint64_t experiment_id : searches) locks.emplace_back(search_lock_of(experiment_id));
  for (std::uint64_t trial_id : trials) locks.emplace_back(appends_of(trial_id).mutex);
  return locks;
}

Status Journal::write(const JournalBatch& batch) {
  if (batch.empty()) return {};
  const auto locks = lock_for(batch);
  KeyValueBatch writes;
  BatchBuilder builder(*this, writes);
  for (const JournalBatch::Operation& operation : batch.operations()) {
    if (auto added = builder.add(operation); !added) return added;
  }
  auto written = store_->write(writes);
  if (written && observer_) observer_(batch);
  return written;
}

}  // namespace volador::storage
