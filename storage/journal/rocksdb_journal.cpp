#include "storage/journal/rocksdb_journal.hpp"

#include <limits>
#include <utility>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/journal_validation.hpp"

namespace volador::storage {
namespace {

namespace fs = std::filesystem;

// RocksDB reports a held LOCK file as an IO error with one of these texts.
bool is_lock_conflict(const rocksdb::Status& status) {
  const std::string message = status.ToString();
  return status.IsIOError() && (message.find("While lock file") != std::string::npos ||
                                message.find("lock hold by current process") != std::string::npos);
}

rocksdb::Options database_options() {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.keep_log_file_num = 4;
  // Archives (up to ~100 MiB) go to blob files instead of being rewritten by compactions.
  options.enable_blob_files = true;
  options.min_blob_size = 64 << 10;
  return options;
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::open(const std::filesystem::path& dir) {
  auto journal = RocksdbJournal::open(dir);
  if (!journal) return fail(journal.error());
  return std::unique_ptr<Journal>(std::move(*journal));
}

Result<std::unique_ptr<RocksdbJournal>> RocksdbJournal::open(const std::filesystem::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(Error::io("cannot create journal folder " + dir.string() + ": " + ec.message()));
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status = rocksdb::DB::Open(database_options(), dir.string(), &db);
  if (is_lock_conflict(status)) {
    return fail(Error::io("journal at " + dir.string() + " is in use by another process (" + status.ToString() + ")"));
  }
  if (!status.ok()) {
    const std::string message = "cannot open journal at " + dir.string() + ": " + status.ToString();
    return fail(status.IsCorruption() ? Error::corruption(message) : Error::io(message));
  }
  return std::unique_ptr<RocksdbJournal>(new RocksdbJournal(dir, std::unique_ptr<rocksdb::DB>(db)));
}

RocksdbJournal::RocksdbJournal(std::filesystem::path dir, std::unique_ptr<rocksdb::DB> db)
    : dir_(std::move(dir)), db_(std::move(db)) {}

RocksdbJournal::~RocksdbJournal() = default;

Error RocksdbJournal::io_error(std::string_view operation, const rocksdb::Status& status) const {
  std::string message = "journal at " + dir_.string() + ": " + std::string(operation) + ": " + status.ToString();
  return status.IsCorruption() ? Error::corruption(std::move(message)) : Error::io(std::move(message));
}

Status RocksdbJournal::write(rocksdb::WriteBatch& batch) const {
  rocksdb::WriteOptions options;
  options.sync = true;
  const rocksdb::Status status = db_->Write(options, &batch);
  if (!status.ok()) return fail(io_error("write", status));
  return {};
}

Result<std::optional<std::string>> RocksdbJournal::get(const std::string& key) const {
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), key, &value);
  if (status.IsNotFound()) return std::nullopt;
  if (!status.ok()) return fail(io_error("read " + keys::describe(key), status));
  return value;
}

Result<std::string> RocksdbJournal::get_required(const std::string& key, std::string_view what) const {
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return fail(Error::not_found(std::string(what) + " not found"));
  return std::move(**value);
}

Result<std::uint64_t> RocksdbJournal::last_id_under(const std::string& prefix) const {
  const rocksdb::Slice lower(prefix);
  rocksdb::ReadOptions options;
  options.iterate_lower_bound = &lower;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options));
  it->SeekForPrev(prefix + std::string(8, '\xff'));
  if (it->Valid() && it->key().starts_with(prefix)) return keys::trailing_id(it->key().ToStringView());
  if (!it->status().ok()) return fail(io_error("seek " + keys::describe(prefix), it->status()));
  return 0;
}

template <class Visit>
Status RocksdbJournal::scan(const std::string& prefix, Visit visit, const std::string& start) const {
  const std::string end = keys::prefix_end(prefix);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions options;
  options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options));
  for (it->Seek(start.empty() ? prefix : start); it->Valid(); it->Next()) {
    Result<bool> more = visit(it->key().ToStringView(), it->value().ToStringView());
    if (!more) return fail(more.error());
    if (!*more) return {};
  }
  if (!it->status().ok()) return fail(io_error("scan " + keys::describe(prefix), it->status()));
  return {};
}

template <class Record, class Lookup>
Result<std::vector<Record>> RocksdbJournal::indexed(const std::string& prefix, Lookup lookup) const {
  std::vector<Record> records;
  auto scanned = scan(prefix, [&](std::string_view key, std::string_view) -> Result<bool> {
    Result<Record> record = lookup(key);
    if (!record && record.error().code == ErrorCode::not_found) {
      return fail(codec::corrupt(key, "indexes a missing record (" + record.error().message + ")"));
    }
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

RocksdbJournal::TrialAppends& RocksdbJournal::appends_of(std::uint64_t trial_id) {
  std::lock_guard lock(appends_mutex_);
  auto& slot = appends_[trial_id];
  if (!slot) slot = std::make_unique<TrialAppends>();
  return *slot;
}

template <class Record>
Result<Record> RocksdbJournal::record_at(const std::string& key, std::string_view what) const {
  auto value = get_required(key, what);
  if (!value) return fail(value.error());
  return codec::decode<Record>(key, *value);
}

template <class Record>
Result<std::vector<Record>> RocksdbJournal::records_under(const std::string& prefix) const {
  std::vector<Record> records;
  auto scanned = scan(prefix, [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto record = codec::decode<Record>(key, value);
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

// ---- writes ----------------------------------------------------------------

Result<std::uint64_t> RocksdbJournal::next_id(std::string_view counter) {
  if (auto valid = validation::check_counter_name(counter); !valid) return fail(valid.error());
  const std::string key = keys::counter(counter);
  std::lock_guard lock(counters_mutex_);
  auto cached = counters_.find(counter);
  if (cached == counters_.end()) {
    auto stored = get(key);
    if (!stored) return fail(stored.error());
    auto last = *stored ? codec::decode<CounterRecord>(key, **stored) : Result<CounterRecord>(CounterRecord{});
    if (!last) return fail(last.error());
    cached = counters_.emplace(std::string(counter), last->value).first;
  }
  const std::uint64_t next = cached->second + 1;
  auto value = codec::encode(CounterRecord{.value = next});
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(key, codec::bytes_of(*value));
  if (auto written = write(batch); !written) return fail(written.error());
  cached->second = next;
  return next;
}

Result<std::uint64_t> RocksdbJournal::append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) {
  TrialAppends& appends = appends_of(trial_id);
  std::lock_guard lock(appends.mutex);
  if (!appends.last_log_seq) {
    auto last = last_id_under(keys::logs_prefix(trial_id));
    if (!last) return fail(last.error());
    appends.last_log_seq = *last;
  }
  std::uint64_t seq = *appends.last_log_seq;
  if (lines.empty()) return seq;
  rocksdb::WriteBatch batch;
  for (LogLine& line : lines) {
    line.trial_id = trial_id;
    line.seq = ++seq;
    auto value = codec::encode(line);
    if (!value) return fail(value.error());
    batch.Put(keys::log(trial_id, seq), codec::bytes_of(*value));
  }
  if (auto written = write(batch); !written) return fail(written.error());
  appends.last_log_seq = seq;
  return seq;
}

Status RocksdbJournal::put_archive(std::uint64_t experiment_id, std::string_view bytes) {
  auto value = codec::encode(ArchiveRecord{.bytes = std::string(bytes)});
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::archive(experiment_id), codec::bytes_of(*value));
  return write(batch);
}

// ---- reads -----------------------------------------------------------------

Result<ExperimentRecord> RocksdbJournal::experiment(std::uint64_t id) const {
  return record_at<ExperimentRecord>(keys::experiment(id), "experiment " + std::to_string(id));
}

Result<std::vector<ExperimentRecord>> RocksdbJournal::experiments() const {
  return records_under<ExperimentRecord>(keys::experiments_prefix());
}

Result<TrialRecord> RocksdbJournal::trial(std::uint64_t id) const {
  return record_at<TrialRecord>(keys::trial(id), "trial " + std::to_string(id));
}

Result<std::vector<TrialRecord>> RocksdbJournal::trials(std::uint64_t experiment_id) const {
  return indexed<TrialRecord>(keys::trial_index_prefix(experiment_id),
                              [&](std::string_view index_key) { return trial(keys::trailing_id(index_key)); });
}

Result<std::vector<MetricRecord>> RocksdbJournal::metrics(std::uint64_t trial_id) const {
  return records_under<MetricRecord>(keys::metrics_prefix(trial_id));
}

Result<std::vector<LogLine>> RocksdbJournal::logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                  std::size_t limit) const {
  std::vector<LogLine> lines;
  if (limit == 0 || after_seq == std::numeric_limits<std::uint64_t>::max()) return lines;
  auto visit = [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto line = codec::decode<LogLine>(key, value);
    if (!line) return fail(line.error());
    lines.push_back(std::move(*line));
    return lines.size() < limit;
  };
  auto scanned = scan(keys::logs_prefix(trial_id), visit, keys::log(trial_id, after_seq + 1));
  if (!scanned) return fail(scanned.error());
  return lines;
}

Result<std::string> RocksdbJournal::archive(std::uint64_t experiment_id) const {
  const std::string key = keys::archive(experiment_id);
  auto value = get_required(key, "archive of experiment " + std::to_string(experiment_id));
  if (!value) return fail(value.error());
  auto record = codec::decode<ArchiveRecord>(key, *value);
  if (!record) return fail(record.error());
  return std::move(record->bytes);
}

Result<std::optional<nlohmann::json>> RocksdbJournal::searcher_state(std::uint64_t experiment_id) const {
  const std::string key = keys::searcher_state(experiment_id);
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return std::optional<nlohmann::json>();
  auto record = codec::decode<SearcherStateRecord>(key, **value);
  if (!record) return fail(record.error());
  return std::optional<nlohmann::json>(std::move(record->state));
}

Result<CheckpointRecord> RocksdbJournal::checkpoint(std::string_view uuid) const {
  return record_at<CheckpointRecord>(keys::checkpoint(uuid), "checkpoint " + std::string(uuid));
}

Result<UserRecord> RocksdbJournal::user(std::string_view name) const {
  return record_at<UserRecord>(keys::user(name), "user '" + std::string(name) + "'");
}

Result<std::vector<UserRecord>> RocksdbJournal::users() const {
  return records_under<UserRecord>(keys::users_prefix());
}

Result<TokenRecord> RocksdbJournal::token(std::string_view token_hash) const {
  return record_at<TokenRecord>(keys::token(token_hash), "token");
}

Result<std::vector<CheckpointRecord>> RocksdbJournal::checkpoints_of_experiment(std::uint64_t experiment_id) const {
  return indexed_checkpoints(keys::checkpoint_experiment_index_prefix(experiment_id));
}

Result<std::vector<CheckpointRecord>> RocksdbJournal::checkpoints_of_trial(std::uint64_t trial_id) const {
  return indexed_checkpoints(keys::checkpoint_trial_index_prefix(trial_id));
}

Result<std::vector<CheckpointRecord>> RocksdbJournal::indexed_checkpoints(const std::string& prefix) const {
  return indexed<CheckpointRecord>(
      prefix, [&](std::string_view index_key) { return checkpoint(keys::checkpoint_uuid(index_key)); });
}

}  // namespace volador::storage
