#include "storage/journal/journal.hpp"

#include <chrono>
#include <future>
#include <set>
#include <span>
#include <utility>

#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/journal_validation.hpp"
#include "storage/journal/log_chunks.hpp"
#include "storage/journal/memory_store.hpp"
#include "storage/journal/rocksdb_store.hpp"

namespace volador::storage {

namespace {

// The value stored for `record` (the one value of its operation), or why it cannot be encoded.
template <class Record>
Result<std::vector<std::string>> encoded(const Record& record) {
  auto value = codec::encode(record);
  if (!value) return fail(value.error());
  return std::vector<std::string>{std::string(codec::bytes_of(*value))};
}

}  // namespace

JournalBatch& JournalBatch::add(Operation operation, Result<std::vector<std::string>> encoded_values) {
  operations_.push_back(std::move(operation));
  encoded_values_.push_back(std::move(encoded_values));
  return *this;
}

JournalBatch& JournalBatch::append(JournalBatch other) {
  for (std::size_t i = 0; i < other.operations_.size(); ++i)
    add(std::move(other.operations_[i]), std::move(other.encoded_values_[i]));
  return *this;
}

JournalBatch& JournalBatch::put_experiment(ExperimentRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_trial(TrialRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_searcher_state(std::uint64_t experiment_id, nlohmann::json state) {
  return add(SearcherStatePut{.experiment_id = experiment_id, .state = std::move(state)});
}

JournalBatch& JournalBatch::append_search_event(std::uint64_t experiment_id, SearchEventRecord event) {
  return add(SearchEventAppend{.experiment_id = experiment_id, .event = std::move(event)});
}

JournalBatch& JournalBatch::put_checkpoint(CheckpointRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::append_metrics(MetricRecord record) {
  auto value = encoded(record);
  return add(std::move(record), std::move(value));
}

JournalBatch& JournalBatch::delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches) {
  return add(MetricsDeletion{.trial_id = trial_id, .after_batches = batches});
}

JournalBatch& JournalBatch::put_user(UserRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_token(TokenRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_experiment_metadata(ExperimentMetadataRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_model(ModelRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_model_version(ModelVersionRecord record) { return add(std::move(record)); }

JournalBatch& JournalBatch::put_numbered_logs(std::vector<LogLine> lines) {
  auto values = log_chunks::encode(lines);
  return add(NumberedLogLines{std::move(lines)}, std::move(values));
}

JournalBatch& JournalBatch::append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) {
  if (lines.empty()) return *this;
  return add(LogAppend{.trial_id = trial_id, .lines = std::move(lines)});
}

std::vector<std::uint64_t> JournalBatch::trials_to_number() const {
  std::set<std::uint64_t> trials;
  for (const Operation& operation : operations_)
    if (const auto* append = std::get_if<LogAppend>(&operation)) trials.insert(append->trial_id);
  return {trials.begin(), trials.end()};
}

void JournalBatch::number_logs(const NumberLines& number) {
  for (std::size_t i = 0; i < operations_.size(); ++i) {
    auto* append = std::get_if<LogAppend>(&operations_[i]);
    if (!append) continue;
    std::vector<LogLine> lines = std::move(append->lines);
    const Status numbered = number(append->trial_id, lines);
    encoded_values_[i] = numbered ? log_chunks::encode(lines) : Result<std::vector<std::string>>(fail(numbered.error()));
    operations_[i] = NumberedLogLines{std::move(lines)};
  }
}

JournalBatch& JournalBatch::raise_counter(std::string counter, std::uint64_t value) {
  return add(CounterRaise{std::move(counter), value});
}

JournalBatch& JournalBatch::delete_experiment(std::uint64_t experiment_id) {
  return add(ExperimentDeletion{.experiment_id = experiment_id});
}

namespace {

// The report of what a damaged store lost.
std::string report_of(const std::filesystem::path& dir, const StoreDamage& damage) {
  std::string report = "journal at " + dir.string() + " was damaged: " + damage.reason + "\n";
  report += "opened at write " + std::to_string(damage.recovered_sequence) + "; writes up to " +
            std::to_string(damage.committed_sequence) + " had been acknowledged: " +
            std::to_string(damage.lost_writes()) + " acknowledged write(s) lost";
  if (damage.lost_writes() > 0) {
    report += " (writes " + std::to_string(damage.recovered_sequence + 1) + " to " +
              std::to_string(damage.committed_sequence) +
              "; each write is one stored record or index entry, and these went with the damaged log)";
  }
  return report + "\n";
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::open(const std::filesystem::path& dir, bool accept_loss) {
  auto store = RocksdbStore::open(dir, accept_loss);
  if (!store) return fail(store.error());
  std::optional<std::string> report;
  if ((*store)->damage()) report = report_of(dir, *(*store)->damage());
  auto journal = std::make_unique<Journal>(std::move(*store));
  journal->damage_report_ = std::move(report);
  return journal;
}

std::unique_ptr<Journal> Journal::in_memory() { return std::make_unique<Journal>(std::make_unique<MemoryStore>()); }

Journal::Journal(std::unique_ptr<KeyValueStore> store)
    : store_(std::move(store)), committer_([this](std::span<const JournalBatch* const> batches) { return write(batches); }) {}

Journal::~Journal() = default;

Status Journal::commit(const JournalBatch& batch) {
  if (batch.empty()) return {};
  return batch.trials_to_number().empty() ? committer_.commit(batch) : commit_numbered(batch);
}

Status Journal::commit_numbered(const JournalBatch& batch) {
  std::promise<Status> outcome;
  auto written = outcome.get_future();
  queue_numbered(batch, [&outcome](const Status& status) { outcome.set_value(status); });
  return written.get();
}

void Journal::commit_async(std::shared_ptr<const JournalBatch> batch, std::function<void(const Status&)> done) {
  if (batch->trials_to_number().empty()) return committer_.submit(std::move(batch), std::move(done));
  queue_numbered(*batch, std::move(done));
}

void Journal::queue_numbered(JournalBatch batch, GroupCommitter::Done done) {
  std::map<std::uint64_t, LockedAppends> locked;  // taken by ascending id
  for (std::uint64_t trial_id : batch.trials_to_number()) locked.emplace(trial_id, locked_appends(trial_id));
  batch.number_logs([&locked, this](std::uint64_t trial_id, std::vector<LogLine>& lines) {
    return number_lines(trial_id, *locked.at(trial_id).appends, lines);
  });
  std::vector<std::shared_ptr<TrialAppends>> numbered;
  for (auto& [trial_id, entry] : locked) {
    ++entry.appends->queued;
    numbered.push_back(entry.appends);
  }
  committer_.submit(std::make_shared<const JournalBatch>(std::move(batch)),
                    [numbered = std::move(numbered), done = std::move(done)](const Status& written) {
                      for (const auto& appends : numbered) --appends->queued;
                      done(written);
                    });
}

void Journal::publish_checkpoints(const JournalBatch& batch) {
  for (const auto& operation : batch.operations())
    if (const auto* checkpoint = std::get_if<CheckpointRecord>(&operation)) checkpoint_feeds_.publish(*checkpoint);
}


Status Journal::put_user(const UserRecord& record) { return commit(JournalBatch().put_user(record)); }
Status Journal::put_token(const TokenRecord& record) { return commit(JournalBatch().put_token(record)); }
Status Journal::put_experiment(const ExperimentRecord& record) { return commit(JournalBatch().put_experiment(record)); }
Status Journal::put_trial(const TrialRecord& record) { return commit(JournalBatch().put_trial(record)); }
Status Journal::append_metrics(const MetricRecord& record) { return commit(JournalBatch().append_metrics(record)); }
Status Journal::put_checkpoint(const CheckpointRecord& record) { return commit(JournalBatch().put_checkpoint(record)); }
Status Journal::put_experiment_metadata(const ExperimentMetadataRecord& record) {
  return commit(JournalBatch().put_experiment_metadata(record));
}
Status Journal::put_model(const ModelRecord& record) { return commit(JournalBatch().put_model(record)); }
Status Journal::put_model_version(const ModelVersionRecord& record) {
  return commit(JournalBatch().put_model_version(record));
}
Status Journal::delete_experiment(std::uint64_t experiment_id) {
  return commit(JournalBatch().delete_experiment(experiment_id));
}

Status Journal::delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches) {
  return commit(JournalBatch().delete_metrics_after(trial_id, batches));
}

Status Journal::put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) {
  return commit(JournalBatch().put_searcher_state(experiment_id, state));
}

Result<std::uint64_t*> Journal::last_counter_value(std::string_view counter) {
  if (auto valid = validation::check_counter_name(counter); !valid) return fail(valid.error());
  auto cached = counters_.find(counter);
  if (cached == counters_.end()) {
    const std::string key = keys::counter(counter);
    auto stored = get(key);
    if (!stored) return fail(stored.error());
    auto last = *stored ? codec::decode<CounterRecord>(key, **stored) : Result<CounterRecord>(CounterRecord{});
    if (!last) return fail(last.error());
    cached = counters_.emplace(std::string(counter), last->value).first;
  }
  return &cached->second;
}

Result<std::uint64_t> Journal::next_id(std::string_view counter) {
  std::lock_guard lock(counters_mutex_);
  auto last = last_counter_value(counter);
  if (!last) return fail(last.error());
  const std::uint64_t next = **last + 1;
  auto value = codec::encode(CounterRecord{.value = next});
  if (!value) return fail(value.error());
  KeyValueBatch batch;
  batch.put(keys::counter(counter), std::string(codec::bytes_of(*value)));
  if (auto written = store_->write(batch); !written) return fail(written.error());
  **last = next;
  return next;
}

Result<std::uint64_t> Journal::reserve_id(std::string_view counter) {
  std::lock_guard lock(counters_mutex_);
  auto last = last_counter_value(counter);
  if (!last) return fail(last.error());
  return ++**last;
}

std::shared_ptr<Journal::TrialAppends> Journal::appends_of(std::uint64_t trial_id) {
  std::lock_guard lock(appends_mutex_);
  auto& slot = appends_[trial_id];
  if (!slot) slot = std::make_shared<TrialAppends>();
  return slot;
}

Journal::LockedAppends Journal::locked_appends(std::uint64_t trial_id) {
  for (;;) {
    LockedAppends locked{appends_of(trial_id), {}};
    locked.lock = std::unique_lock(locked.appends->mutex);
    if (!locked.appends->retired) return locked;
  }
}

void Journal::retire_ended_trials() {
  std::lock_guard lock(appends_mutex_);
  for (auto it = ended_trials_.begin(); it != ended_trials_.end();) {
    const auto entry = appends_.find(*it);
    if (entry != appends_.end()) {
      TrialAppends& appends = *entry->second;
      std::unique_lock busy(appends.mutex, std::try_to_lock);  // an append holds it: the next write tries again
      if (!busy.owns_lock() || appends.queued > 0) {
        ++it;
        continue;
      }
      appends.retired = true;
      busy.unlock();
      appends_.erase(entry);
    }
    it = ended_trials_.erase(it);
  }
}

std::size_t Journal::trials_with_append_state() const {
  committer_.wait_for_queued();
  std::lock_guard lock(appends_mutex_);
  return appends_.size();
}

Status Journal::number_lines(std::uint64_t trial_id, TrialAppends& appends, std::vector<LogLine>& lines) {
  if (!appends.last_log_seq) {
    auto last = last_id_under(keys::logs_prefix(trial_id));
    if (!last) return fail(last.error());
    appends.last_log_seq = *last;
  }
  for (LogLine& line : lines) {
    line.trial_id = trial_id;
    line.seq = ++*appends.last_log_seq;
  }
  return {};
}

Result<std::uint64_t> Journal::append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) {
  LockedAppends locked = locked_appends(trial_id);  // held through the write: a later append is queued after it
  TrialAppends& appends = *locked.appends;
  if (auto numbered = number_lines(trial_id, appends, lines); !numbered) return fail(numbered.error());
  if (lines.empty()) return *appends.last_log_seq;
  if (auto written = committer_.commit(JournalBatch().put_numbered_logs(std::move(lines))); !written) {
    appends.last_log_seq.reset();  // read again: these seqs were not written
    return fail(written.error());
  }
  return *appends.last_log_seq;
}

void Journal::append_logs_async(std::uint64_t trial_id, std::vector<LogLine> lines,
                                std::function<void(const Status&)> done) {
  if (!lines.empty()) queue_numbered(JournalBatch().append_logs(trial_id, std::move(lines)), std::move(done));
}

Status Journal::put_archive(std::uint64_t experiment_id, std::string_view bytes) {
  auto value = codec::encode(ArchiveRecord{.bytes = std::string(bytes)});
  if (!value) return fail(value.error());
  KeyValueBatch batch;
  batch.put(keys::archive(experiment_id), std::string(codec::bytes_of(*value)));
  return store_->write(batch);
}

}  // namespace volador::storage
