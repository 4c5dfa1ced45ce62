#include "storage/journal/rocksdb_journal.hpp"

#include <cstring>
#include <limits>
#include <utility>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "schemas/journal.capnp.h"
#include "storage/journal/journal_keys.hpp"

namespace volador::storage {
namespace {

namespace fs = std::filesystem;
namespace schema = volador::journal_schema;
using Words = kj::Array<capnp::word>;

static_assert(static_cast<int>(RunState::active) == static_cast<int>(schema::RunState::ACTIVE));
static_assert(static_cast<int>(RunState::paused) == static_cast<int>(schema::RunState::PAUSED));
static_assert(static_cast<int>(RunState::completed) == static_cast<int>(schema::RunState::COMPLETED));
static_assert(static_cast<int>(RunState::canceled) == static_cast<int>(schema::RunState::CANCELED));
static_assert(static_cast<int>(RunState::error) == static_cast<int>(schema::RunState::ERROR));

// ---- Cap'n Proto codec -----------------------------------------------------

capnp::Text::Reader text(const std::string& s) { return {s.data(), s.size()}; }
std::string str(capnp::Text::Reader t) { return {t.begin(), t.size()}; }
rocksdb::Slice slice(const Words& words) { return {words.asChars().begin(), words.asChars().size()}; }

Error corrupt(std::string_view key, std::string_view why) {
  return Error::corruption("journal record " + keys::describe(key) + " is corrupt: " + std::string(why));
}

// Encodes one record; `fill` sets the fields of the root builder.
template <class Schema, class Fill>
Result<Words> encode(std::string_view what, Fill fill) {
  try {
    capnp::MallocMessageBuilder message;
    fill(message.initRoot<Schema>());
    return capnp::messageToFlatArray(message);
  } catch (const kj::Exception& e) {
    return fail(Error::invalid_argument("cannot encode " + std::string(what) + ": " + e.getDescription().cStr()));
  }
}

// Decodes the value stored under `key`; `convert` turns the root reader into
// a Result<Record>. Traversal is limited to the value's own size (no pointer
// amplification), nesting to what the schema needs.
template <class Schema, class Convert>
auto decode(std::string_view key, std::string_view value, Convert convert)
    -> decltype(convert(std::declval<typename Schema::Reader>())) {
  constexpr std::size_t word = sizeof(capnp::word);
  if (value.empty() || value.size() % word != 0) {
    return fail(corrupt(key, std::to_string(value.size()) + " bytes is not a whole number of words"));
  }
  auto words = kj::heapArray<capnp::word>(value.size() / word);
  std::memcpy(words.begin(), value.data(), value.size());
  capnp::ReaderOptions options;
  options.traversalLimitInWords = words.size() + 8;
  options.nestingLimit = 8;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    if (reader.getEnd() != words.end()) return fail(corrupt(key, "trailing bytes after the message"));
    return convert(reader.getRoot<Schema>());
  } catch (const kj::Exception& e) {
    return fail(corrupt(key, e.getDescription().cStr()));
  }
}

Result<RunState> to_run_state(schema::RunState state, std::string_view key) {
  const auto value = static_cast<std::uint16_t>(state);
  if (value > static_cast<std::uint16_t>(schema::RunState::ERROR)) {
    return fail(corrupt(key, "unknown run state " + std::to_string(value)));
  }
  return static_cast<RunState>(value);
}

Result<std::string> dump_json(const nlohmann::json& json, std::string_view what) {
  try {
    return json.dump();
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::invalid_argument(std::string(what) + " is not valid JSON: " + e.what()));
  }
}

Result<nlohmann::json> parse_json(capnp::Text::Reader json_text, std::string_view key) {
  auto json = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr, false);
  if (json.is_discarded()) return fail(corrupt(key, "invalid JSON"));
  return json;
}

Result<Words> encode_experiment(const ExperimentRecord& r) {
  return encode<schema::Experiment>("experiment " + std::to_string(r.id), [&](schema::Experiment::Builder b) {
    b.setId(r.id);
    b.setName(text(r.name));
    b.setConfigYaml(text(r.config_yaml));
    b.setConfigFileName(text(r.config_file_name));
    b.setState(static_cast<schema::RunState>(r.state));
    b.setExperimentSeed(r.experiment_seed);
    b.setProgress(r.progress);
    b.setErrorMessage(text(r.error_message));
    b.setCreatedAtMs(r.created_at_ms);
    b.setEndedAtMs(r.ended_at_ms);
  });
}

Result<ExperimentRecord> decode_experiment(std::string_view key, std::string_view value) {
  return decode<schema::Experiment>(key, value, [&](schema::Experiment::Reader m) -> Result<ExperimentRecord> {
    if (m.getId() != keys::trailing_id(key)) return fail(corrupt(key, "holds experiment " + std::to_string(m.getId())));
    auto state = to_run_state(m.getState(), key);
    if (!state) return fail(state.error());
    return ExperimentRecord{.id = m.getId(),
                            .name = str(m.getName()),
                            .config_yaml = str(m.getConfigYaml()),
                            .config_file_name = str(m.getConfigFileName()),
                            .state = *state,
                            .experiment_seed = m.getExperimentSeed(),
                            .progress = m.getProgress(),
                            .error_message = str(m.getErrorMessage()),
                            .created_at_ms = m.getCreatedAtMs(),
                            .ended_at_ms = m.getEndedAtMs()};
  });
}

Result<Words> encode_trial(const TrialRecord& r) {
  const std::string what = "trial " + std::to_string(r.id);
  auto hparams = dump_json(r.hparams, "hparams of " + what);
  if (!hparams) return fail(hparams.error());
  return encode<schema::Trial>(what, [&](schema::Trial::Builder b) {
    b.setId(r.id);
    b.setExperimentId(r.experiment_id);
    b.setRequestId(r.request_id);
    b.setHparamsJson(text(*hparams));
    b.setSeed(r.seed);
    b.setState(static_cast<schema::RunState>(r.state));
    b.setBatchesTrained(r.batches_trained);
    b.setRestarts(r.restarts);
    b.setRunId(r.run_id);
    b.setErrorMessage(text(r.error_message));
    b.setCreatedAtMs(r.created_at_ms);
    b.setEndedAtMs(r.ended_at_ms);
  });
}

Result<TrialRecord> decode_trial(std::string_view key, std::string_view value) {
  return decode<schema::Trial>(key, value, [&](schema::Trial::Reader m) -> Result<TrialRecord> {
    if (m.getId() != keys::trailing_id(key)) return fail(corrupt(key, "holds trial " + std::to_string(m.getId())));
    auto state = to_run_state(m.getState(), key);
    if (!state) return fail(state.error());
    auto hparams = parse_json(m.getHparamsJson(), key);
    if (!hparams) return fail(hparams.error());
    return TrialRecord{.id = m.getId(),
                       .experiment_id = m.getExperimentId(),
                       .request_id = m.getRequestId(),
                       .hparams = std::move(*hparams),
                       .seed = m.getSeed(),
                       .state = *state,
                       .batches_trained = m.getBatchesTrained(),
                       .restarts = m.getRestarts(),
                       .run_id = m.getRunId(),
                       .error_message = str(m.getErrorMessage()),
                       .created_at_ms = m.getCreatedAtMs(),
                       .ended_at_ms = m.getEndedAtMs()};
  });
}

Result<Words> encode_metrics(const MetricRecord& r) {
  return encode<schema::MetricReport>("metrics of trial " + std::to_string(r.trial_id),
                                      [&](schema::MetricReport::Builder b) {
    b.setTrialId(r.trial_id);
    b.setKind(r.kind == MetricKind::training ? schema::MetricKind::TRAINING : schema::MetricKind::VALIDATION);
    b.setBatches(r.batches);
    b.setReportedAtMs(r.reported_at_ms);
    auto list = b.initMetrics(static_cast<unsigned>(r.metrics.size()));
    unsigned i = 0;
    for (const auto& [name, value] : r.metrics) {
      list[i].setName(text(name));
      list[i++].setValue(value);
    }
  });
}

Result<MetricRecord> decode_metrics(std::string_view key, std::string_view value) {
  return decode<schema::MetricReport>(key, value, [&](schema::MetricReport::Reader m) -> Result<MetricRecord> {
    MetricRecord record{.trial_id = m.getTrialId(),
                        .kind = m.getKind() == schema::MetricKind::TRAINING ? MetricKind::training
                                                                            : MetricKind::validation,
                        .batches = m.getBatches(),
                        .metrics = {},
                        .reported_at_ms = m.getReportedAtMs()};
    for (auto metric : m.getMetrics()) record.metrics.emplace(str(metric.getName()), metric.getValue());
    return record;
  });
}

Result<Words> encode_log(const LogLine& l) {
  return encode<schema::LogLine>("log line of trial " + std::to_string(l.trial_id), [&](schema::LogLine::Builder b) {
    b.setTrialId(l.trial_id);
    b.setSeq(l.seq);
    b.setTimeMs(l.time_ms);
    b.setStream(text(l.stream));
    b.setText(text(l.text));
  });
}

Result<LogLine> decode_log(std::string_view key, std::string_view value) {
  return decode<schema::LogLine>(key, value, [&](schema::LogLine::Reader m) -> Result<LogLine> {
    return LogLine{.trial_id = m.getTrialId(),
                   .seq = m.getSeq(),
                   .time_ms = m.getTimeMs(),
                   .stream = str(m.getStream()),
                   .text = str(m.getText())};
  });
}

Result<Words> encode_archive(std::uint64_t experiment_id, std::string_view bytes) {
  return encode<schema::Archive>("archive of experiment " + std::to_string(experiment_id),
                                 [&](schema::Archive::Builder b) {
    b.setBytes({reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size()});
  });
}

Result<std::string> decode_archive(std::string_view key, std::string_view value) {
  return decode<schema::Archive>(key, value, [&](schema::Archive::Reader m) -> Result<std::string> {
    auto bytes = m.getBytes().asChars();
    return std::string(bytes.begin(), bytes.size());
  });
}

Result<Words> encode_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) {
  const std::string what = "searcher state of experiment " + std::to_string(experiment_id);
  auto json = dump_json(state, what);
  if (!json) return fail(json.error());
  return encode<schema::SearcherState>(what, [&](schema::SearcherState::Builder b) { b.setJson(text(*json)); });
}

Result<nlohmann::json> decode_searcher_state(std::string_view key, std::string_view value) {
  return decode<schema::SearcherState>(key, value, [&](schema::SearcherState::Reader m) {
    return parse_json(m.getJson(), key);
  });
}

Result<Words> encode_counter(std::string_view name, std::uint64_t value) {
  return encode<schema::Counter>("counter " + std::string(name),
                                 [&](schema::Counter::Builder b) { b.setValue(value); });
}

Result<std::uint64_t> decode_counter(std::string_view key, std::string_view value) {
  return decode<schema::Counter>(key, value,
                                 [](schema::Counter::Reader m) -> Result<std::uint64_t> { return m.getValue(); });
}

// ---- RocksDB helpers -------------------------------------------------------

// The smallest key greater than every key starting with `prefix`.
std::string prefix_end(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (!prefix.empty()) prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

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
  const std::string end = prefix_end(prefix);
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

RocksdbJournal::TrialAppends& RocksdbJournal::appends_of(std::uint64_t trial_id) {
  std::lock_guard lock(appends_mutex_);
  auto& slot = appends_[trial_id];
  if (!slot) slot = std::make_unique<TrialAppends>();
  return *slot;
}

// ---- writes ----------------------------------------------------------------

Result<std::uint64_t> RocksdbJournal::next_id(std::string_view counter) {
  if (counter.empty()) return fail(Error::invalid_argument("journal counter name is empty"));
  const std::string key = keys::counter(counter);
  std::lock_guard lock(counters_mutex_);
  auto cached = counters_.find(counter);
  if (cached == counters_.end()) {
    auto stored = get(key);
    if (!stored) return fail(stored.error());
    auto last = *stored ? decode_counter(key, **stored) : Result<std::uint64_t>(0);
    if (!last) return fail(last.error());
    cached = counters_.emplace(std::string(counter), *last).first;
  }
  const std::uint64_t next = cached->second + 1;
  auto value = encode_counter(counter, next);
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(key, slice(*value));
  if (auto written = write(batch); !written) return fail(written.error());
  cached->second = next;
  return next;
}

Status RocksdbJournal::put_experiment(const ExperimentRecord& record) {
  auto value = encode_experiment(record);
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::experiment(record.id), slice(*value));
  return write(batch);
}

Status RocksdbJournal::put_trial(const TrialRecord& record) {
  auto value = encode_trial(record);
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::trial(record.id), slice(*value));
  batch.Put(keys::trial_index(record.experiment_id, record.id), rocksdb::Slice());
  return write(batch);
}

Status RocksdbJournal::append_metrics(const MetricRecord& record) {
  auto value = encode_metrics(record);
  if (!value) return fail(value.error());
  TrialAppends& appends = appends_of(record.trial_id);
  std::lock_guard lock(appends.mutex);
  auto last = last_id_under(keys::metric_step_prefix(record.trial_id, record.kind, record.batches));
  if (!last) return fail(last.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::metric(record.trial_id, record.kind, record.batches, *last + 1), slice(*value));
  return write(batch);
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
    auto value = encode_log(line);
    if (!value) return fail(value.error());
    batch.Put(keys::log(trial_id, seq), slice(*value));
  }
  if (auto written = write(batch); !written) return fail(written.error());
  appends.last_log_seq = seq;
  return seq;
}

Status RocksdbJournal::put_archive(std::uint64_t experiment_id, std::string_view bytes) {
  auto value = encode_archive(experiment_id, bytes);
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::archive(experiment_id), slice(*value));
  return write(batch);
}

Status RocksdbJournal::put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) {
  auto value = encode_searcher_state(experiment_id, state);
  if (!value) return fail(value.error());
  rocksdb::WriteBatch batch;
  batch.Put(keys::searcher_state(experiment_id), slice(*value));
  return write(batch);
}

// ---- reads -----------------------------------------------------------------

Result<ExperimentRecord> RocksdbJournal::experiment(std::uint64_t id) const {
  const std::string key = keys::experiment(id);
  auto value = get_required(key, "experiment " + std::to_string(id));
  if (!value) return fail(value.error());
  return decode_experiment(key, *value);
}

Result<std::vector<ExperimentRecord>> RocksdbJournal::experiments() const {
  std::vector<ExperimentRecord> records;
  auto scanned = scan(keys::experiments_prefix(), [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto record = decode_experiment(key, value);
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

Result<TrialRecord> RocksdbJournal::trial(std::uint64_t id) const {
  const std::string key = keys::trial(id);
  auto value = get_required(key, "trial " + std::to_string(id));
  if (!value) return fail(value.error());
  return decode_trial(key, *value);
}

Result<std::vector<TrialRecord>> RocksdbJournal::trials(std::uint64_t experiment_id) const {
  std::vector<TrialRecord> records;
  auto scanned = scan(keys::trial_index_prefix(experiment_id), [&](std::string_view key, std::string_view) -> Result<bool> {
    const std::uint64_t trial_id = keys::trailing_id(key);
    auto record = trial(trial_id);
    if (!record && record.error().code == ErrorCode::not_found) {
      return fail(corrupt(key, "indexes trial " + std::to_string(trial_id) + ", which is missing"));
    }
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

Result<std::vector<MetricRecord>> RocksdbJournal::metrics(std::uint64_t trial_id) const {
  std::vector<MetricRecord> records;
  auto scanned = scan(keys::metrics_prefix(trial_id), [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto record = decode_metrics(key, value);
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

Result<std::vector<LogLine>> RocksdbJournal::logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                  std::size_t limit) const {
  std::vector<LogLine> lines;
  if (limit == 0 || after_seq == std::numeric_limits<std::uint64_t>::max()) return lines;
  auto visit = [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto line = decode_log(key, value);
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
  return decode_archive(key, *value);
}

Result<std::optional<nlohmann::json>> RocksdbJournal::searcher_state(std::uint64_t experiment_id) const {
  const std::string key = keys::searcher_state(experiment_id);
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return std::optional<nlohmann::json>();
  auto state = decode_searcher_state(key, **value);
  if (!state) return fail(state.error());
  return std::optional<nlohmann::json>(std::move(*state));
}

}  // namespace volador::storage
