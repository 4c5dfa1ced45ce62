// Journal::write (Journal::commit): every operation of a JournalBatch into
// one KeyValueBatch, written at once. Nothing reaches the store before that
// write, so an operation that fails to encode leaves the journal untouched.

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <variant>

#include "storage/journal/journal.hpp"
#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/journal_validation.hpp"
#include "storage/journal/log_chunks.hpp"

namespace volador::storage {

// Adds operations in order. Reads the store for what they build on (the
// last metric seq of a step, a replaced checkpoint's index entries) and
// remembers what earlier operations of the same batch added, which the
// store does not show yet. The last seq of each search comes from the
// journal's cache once known (remember_search_seqs keeps it current after a
// write), so appending a search event reads nothing. Only the journal's
// writer thread runs it.
class Journal::BatchBuilder {
 public:
  BatchBuilder(Journal& journal, KeyValueBatch& batch) : journal_(journal), batch_(batch) {}

  // What the journal refuses (journal_validation.hpp), encoding and read
  // errors. `encoded`: the operation's values as the batch encoded them.
  Status add(const JournalBatch::Operation& operation, const Result<std::vector<std::string>>& encoded) {
    if (auto valid = validation::check_operation(operation); !valid) return valid;
    if (!encoded) return fail(encoded.error());
    encoded_ = &*encoded;
    return std::visit(*this, operation);
  }

  Status operator()(const ExperimentRecord& record) { return put_record(keys::experiment(record.id), record); }

  // One record per chunk (log_chunks.hpp), under its last line's seq.
  Status operator()(const JournalBatch::NumberedLogLines& logs) {
    const auto chunks = log_chunks::split(logs.lines);
    for (std::size_t i = 0; i < chunks.size(); ++i)
      put(keys::log(chunks[i].back().trial_id, chunks[i].back().seq), encoded_->at(i));
    return {};
  }

  // Journal::commit numbers every append before the batch reaches the writer.
  Status operator()(const JournalBatch::LogAppend& append) {
    return fail(Error::internal("log lines of trial " + std::to_string(append.trial_id) + " reached the writer unnumbered"));
  }

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
    searches_.insert(put_state.experiment_id);
    return {};
  }

  Status operator()(const JournalBatch::SearchEventAppend& append) {
    auto value = codec::encode(append.event);
    if (!value) return fail(value.error());
    auto seq = next_search_event_seq(append.experiment_id);
    if (!seq) return fail(seq.error());
    put(keys::search_event(append.experiment_id, *seq), codec::bytes_of(*value));
    return {};
  }

  // A report at batches beyond every stored one of its kind starts its step
  // at seq 1 without reading the store: a metric flood costs no seeks.
  Status operator()(const MetricRecord& record) {
    auto highest = journal_.highest_metric_batches(record.trial_id, record.kind);
    if (!highest) return fail(highest.error());
    const std::string step = keys::metric_step_prefix(record.trial_id, record.kind, record.batches);
    if (record.batches > **highest) last_seq_.try_emplace(step, 0);
    **highest = std::max(**highest, record.batches);
    auto seq = next_seq(step);
    if (!seq) return fail(seq.error());
    put(keys::metric(record.trial_id, record.kind, record.batches, *seq), encoded_->at(0));
    return {};
  }

  Status operator()(const JournalBatch::MetricsDeletion& deletion) {
    for (MetricKind kind : {MetricKind::training, MetricKind::validation}) {
      const keys::KeyRange range = keys::metrics_after(deletion.trial_id, kind, deletion.after_batches);
      if (range.begin < range.end) batch_.erase_range(range.begin, range.end);
    }
    return {};
  }

  // Writes the counter only when the value is above the stored one. A raised
  // "trial" counter journals a new trial (experiment_actor.cpp): ids only
  // rise, so nothing is stored under that id yet.
  Status operator()(const JournalBatch::CounterRaise& raise) {
    auto stored = stored_counter(raise.counter);
    if (!stored) return fail(stored.error());
    if (raise.value <= *stored) return {};
    raised_counters_[raise.counter] = raise.value;
    if (raise.counter == "trial") note_nothing_stored(raise.value);
    return put_record(keys::counter(raise.counter), CounterRecord{.value = raise.value});
  }

  Status operator()(const UserRecord& record) { return put_record(keys::user(record.name), record); }
  Status operator()(const TokenRecord& record) { return put_record(keys::token(record.token_hash), record); }
  Status operator()(const ExperimentMetadataRecord& record) {
    return put_record(keys::experiment_metadata(record.experiment_id), record);
  }
  Status operator()(const ModelRecord& record) { return put_record(keys::model(record.name), record); }
  Status operator()(const ModelVersionRecord& record) {
    return put_record(keys::model_version(record.model_name, record.version), record);
  }

  // Reads the experiment's trials and checkpoints and the registered
  // checkpoints as stored: an experiment being deleted gets no new records.
  Status operator()(const JournalBatch::ExperimentDeletion& deletion) {
    const std::uint64_t id = deletion.experiment_id;
    auto trials = journal_.trials(id);
    auto checkpoints = journal_.checkpoints_of_experiment(id);
    auto registered = journal_.registered_checkpoints();
    if (!trials) return fail(trials.error());
    if (!checkpoints) return fail(checkpoints.error());
    if (!registered) return fail(registered.error());
    for (const auto& c : *checkpoints) {
      if (!registered->contains(c.uuid)) batch_.erase(keys::checkpoint(c.uuid));
      checkpoints_.erase(c.uuid);
    }
    for (const auto& trial : *trials) {
      batch_.erase(keys::trial(trial.id));
      for (const std::string& prefix : {keys::metrics_prefix(trial.id), keys::logs_prefix(trial.id),
                                        keys::checkpoint_trial_index_prefix(trial.id)})
        erase_prefix(prefix);
    }
    for (const std::string& key : {keys::experiment(id), keys::archive(id), keys::searcher_state(id),
                                   keys::experiment_metadata(id)})
      batch_.erase(key);
    for (const std::string& prefix : {keys::search_events_prefix(id), keys::trial_index_prefix(id),
                                      keys::checkpoint_experiment_index_prefix(id)})
      erase_prefix(prefix);
    searches_.insert(id);
    return {};
  }

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

  // After the batch is written: the journal's cache of the stored counters
  // takes the raised values.
  void remember_counters() {
    for (auto& [counter, value] : raised_counters_) journal_.stored_counters_[counter] = value;
  }

  // After the batch is written: the journal's cache of each search's last
  // event seq takes what the batch left (forgets a deleted experiment's).
  void remember_search_seqs() {
    for (std::uint64_t experiment_id : searches_) {
      auto last = last_seq_.find(keys::search_events_prefix(experiment_id));
      if (last == last_seq_.end())
        journal_.last_search_event_seqs_.erase(experiment_id);
      else
        journal_.last_search_event_seqs_[experiment_id] = last->second;
    }
  }

 private:
  struct IndexKeys {
    std::string of_experiment;
    std::string of_trial;
    bool operator==(const IndexKeys&) const = default;
  };

  void put(const std::string& key, std::string_view value) { batch_.put(key, std::string(value)); }
  void erase_prefix(const std::string& prefix) {
    batch_.erase_range(prefix, prefix_end(prefix));
    last_seq_.erase(prefix);
  }

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

  // next_seq of the experiment's search events, starting from the journal's
  // cached last seq when it has one (no read of the store).
  Result<std::uint64_t> next_search_event_seq(std::uint64_t experiment_id) {
    const std::string prefix = keys::search_events_prefix(experiment_id);
    if (!last_seq_.contains(prefix))
      if (auto cached = journal_.last_search_event_seqs_.find(experiment_id);
          cached != journal_.last_search_event_seqs_.end())
        last_seq_.emplace(prefix, cached->second);
    searches_.insert(experiment_id);
    return next_seq(prefix);
  }

  // The counter's value as this batch leaves it: raised here, cached, or read from the store.
  Result<std::uint64_t> stored_counter(const std::string& counter) {
    if (auto raised = raised_counters_.find(counter); raised != raised_counters_.end()) return raised->second;
    if (auto cached = journal_.stored_counters_.find(counter); cached != journal_.stored_counters_.end())
      return cached->second;
    const std::string key = keys::counter(counter);
    auto stored = journal_.get(key);
    if (!stored) return fail(stored.error());
    if (!*stored) return 0;
    auto record = codec::decode<CounterRecord>(key, **stored);
    if (!record) return fail(record.error());
    journal_.stored_counters_[counter] = record->value;
    return record->value;
  }

  // Caches that nothing is stored under a new trial's id, so that its first
  // log and metric appends do not seek for their last seq. Whatever an
  // append cached already stands (an append may come first); the log seq
  // only when no append holds it now: the writer thread never waits for an
  // append that waits for the writer.
  void note_nothing_stored(std::uint64_t trial_id) {
    TrialAppends& appends = *journal_.appends_of(trial_id);
    for (auto& highest : appends.highest_batches)
      if (!highest) highest = 0;
    std::unique_lock lock(appends.mutex, std::try_to_lock);
    if (lock.owns_lock() && !appends.last_log_seq) appends.last_log_seq = 0;
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

  Journal& journal_;
  KeyValueBatch& batch_;
  const std::vector<std::string>* encoded_ = nullptr;  // the values of the operation being added
  // By prefix; hashed: a metric flood adds a step per point, tens of thousands a write.
  std::unordered_map<std::string, std::uint64_t> last_seq_;
  std::map<std::string, IndexKeys> checkpoints_;           // by uuid
  std::set<std::uint64_t> searches_;                       // experiments whose search events the batch touches
  std::map<std::string, std::uint64_t> raised_counters_;   // by counter name
};

// Lowered only once the deletion is written: a cached step too low would let
// a report overwrite a stored one.
void Journal::lower_highest_batches(const JournalBatch::MetricsDeletion& deletion) {
  for (auto& highest : appends_of(deletion.trial_id)->highest_batches)
    if (highest) *highest = std::min(*highest, deletion.after_batches);
}

Result<std::uint64_t*> Journal::highest_metric_batches(std::uint64_t trial_id, MetricKind kind) {
  auto& cached = appends_of(trial_id)->highest_batches.at(static_cast<std::size_t>(kind));
  if (!cached) {
    const std::string prefix = keys::metric_kind_prefix(trial_id, kind);
    auto last = store_->last_key_with(prefix);
    if (!last) return fail(last.error());
    cached = *last ? keys::metric_batches(**last, prefix) : 0;
  }
  return &*cached;
}

// One builder for the whole group: the seqs and index entries an earlier
// batch adds are seen by the later ones, which the store does not show yet.
Status Journal::write(std::span<const JournalBatch* const> batches) {
  retire_ended_trials();
  const auto started = std::chrono::steady_clock::now();
  KeyValueBatch writes;
  BatchBuilder builder(*this, writes);
  for (const JournalBatch* batch : batches)
    for (std::size_t i = 0; i < batch->operations().size(); ++i)
      if (auto added = builder.add(batch->operations()[i], batch->encoded_values(i)); !added) return added;
  auto written = store_->write(writes);
  if (!written) return written;
  builder.remember_search_seqs();
  builder.remember_counters();
  const auto latency = std::chrono::steady_clock::now() - started;
  for (const JournalBatch* batch : batches) {
    for (const JournalBatch::Operation& operation : batch->operations()) {
      if (const auto* version = std::get_if<ModelVersionRecord>(&operation)) registered_.written(*version);
      if (const auto* deletion = std::get_if<JournalBatch::MetricsDeletion>(&operation)) lower_highest_batches(*deletion);
      if (const auto* trial = std::get_if<TrialRecord>(&operation); trial && is_terminal(trial->state))
        ended_trials_.insert(trial->id);
    }
    stats_.record(*batch, latency);
    publish_checkpoints(*batch);
    if (observer_) observer_(*batch);
  }
  return written;
}

}  // namespace volador::storage
