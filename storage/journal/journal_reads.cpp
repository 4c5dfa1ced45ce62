// The Journal's reads: records decoded from the store's values under the
// key layout of journal_keys.hpp.

#include <limits>
#include <utility>

#include "storage/journal/journal.hpp"

#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/log_chunks.hpp"

namespace volador::storage {

Result<std::optional<std::string>> Journal::get(const std::string& key) const {
  committer_.wait_for_queued();
  auto value = store_->get(key);
  if (!value) return fail(Error{value.error().code, value.error().message + " (record " + keys::describe(key) + ")"});
  return value;
}

Result<std::uint64_t> Journal::last_id_under(const std::string& prefix) const {
  auto last = store_->last_key_with(prefix);
  if (!last) return fail(last.error());
  return *last ? keys::trailing_id(**last) : 0;
}

// Reads the index keys first, then their records: the store is not read
// while a scan of it runs.
template <class Record, class Lookup>
Result<std::vector<Record>> Journal::indexed(const std::string& prefix, Lookup lookup) const {
  committer_.wait_for_queued();
  std::vector<std::string> index_keys;
  auto scanned = store_->scan(prefix, {}, [&](std::string_view key, std::string_view) -> Result<bool> {
    index_keys.emplace_back(key);
    return true;
  });
  if (!scanned) return fail(scanned.error());
  std::vector<Record> records;
  for (const std::string& key : index_keys) {
    Result<Record> record = lookup(key);
    if (!record && record.error().code == ErrorCode::not_found) {
      return fail(codec::corrupt(key, "indexes a missing record (" + record.error().message + ")"));
    }
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
  }
  return records;
}

template <class Record>
Result<Record> Journal::record_at(const std::string& key, std::string_view what) const {
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return fail(Error::not_found(std::string(what) + " not found"));
  return codec::decode<Record>(key, **value);
}

template <class Record>
Result<std::vector<Record>> Journal::records_under(const std::string& prefix) const {
  committer_.wait_for_queued();
  std::vector<Record> records;
  auto scanned = store_->scan(prefix, {}, [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto record = codec::decode<Record>(key, value);
    if (!record) return fail(record.error());
    records.push_back(std::move(*record));
    return true;
  });
  if (!scanned) return fail(scanned.error());
  return records;
}

// ---- reads -----------------------------------------------------------------

Result<ExperimentRecord> Journal::experiment(std::uint64_t id) const {
  return record_at<ExperimentRecord>(keys::experiment(id), "experiment " + std::to_string(id));
}

Result<std::vector<ExperimentRecord>> Journal::experiments() const {
  return records_under<ExperimentRecord>(keys::experiments_prefix());
}

Result<TrialRecord> Journal::trial(std::uint64_t id) const {
  return record_at<TrialRecord>(keys::trial(id), "trial " + std::to_string(id));
}

Result<std::vector<TrialRecord>> Journal::trials(std::uint64_t experiment_id) const {
  return indexed<TrialRecord>(keys::trial_index_prefix(experiment_id),
                              [&](std::string_view index_key) { return trial(keys::trailing_id(index_key)); });
}

Result<std::vector<MetricRecord>> Journal::metrics(std::uint64_t trial_id) const {
  return records_under<MetricRecord>(keys::metrics_prefix(trial_id));
}

Result<std::vector<LogLine>> Journal::logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                           std::size_t limit) const {
  std::vector<LogLine> lines;
  if (limit == 0 || after_seq == std::numeric_limits<std::uint64_t>::max()) return lines;
  // The first chunk holding a line past after_seq is the first whose last line is.
  auto visit = [&](std::string_view key, std::string_view value) -> Result<bool> {
    auto chunk = log_chunks::decode(key, value);
    if (!chunk) return fail(chunk.error());
    for (LogLine& line : *chunk)
      if (line.seq > after_seq && lines.size() < limit) lines.push_back(std::move(line));
    return lines.size() < limit;
  };
  committer_.wait_for_queued();
  auto scanned = store_->scan(keys::logs_prefix(trial_id), keys::log(trial_id, after_seq + 1), visit);
  if (!scanned) return fail(scanned.error());
  return lines;
}

// A chunk is keyed by its last line's seq (log_chunks.hpp).
Result<std::uint64_t> Journal::last_log_seq(std::uint64_t trial_id) const {
  committer_.wait_for_queued();
  return last_id_under(keys::logs_prefix(trial_id));
}

Result<std::string> Journal::archive(std::uint64_t experiment_id) const {
  auto record = record_at<ArchiveRecord>(keys::archive(experiment_id),
                                         "archive of experiment " + std::to_string(experiment_id));
  if (!record) return fail(record.error());
  return std::move(record->bytes);
}

Result<std::optional<SearchLogRecords>> Journal::search_log(std::uint64_t experiment_id) const {
  const std::string key = keys::searcher_state(experiment_id);
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return std::optional<SearchLogRecords>();
  auto snapshot = codec::decode<SearcherStateRecord>(key, **value);
  if (!snapshot) return fail(snapshot.error());
  auto events = records_under<SearchEventRecord>(keys::search_events_prefix(experiment_id));
  if (!events) return fail(events.error());
  return std::optional<SearchLogRecords>(SearchLogRecords{std::move(snapshot->state), std::move(*events)});
}

Result<CheckpointRecord> Journal::checkpoint(std::string_view uuid) const {
  return record_at<CheckpointRecord>(keys::checkpoint(uuid), "checkpoint " + std::string(uuid));
}

Result<UserRecord> Journal::user(std::string_view name) const {
  return record_at<UserRecord>(keys::user(name), "user '" + std::string(name) + "'");
}

Result<std::vector<UserRecord>> Journal::users() const {
  return records_under<UserRecord>(keys::users_prefix());
}

Result<TokenRecord> Journal::token(std::string_view token_hash) const {
  return record_at<TokenRecord>(keys::token(token_hash), "token");
}

Result<std::optional<ExperimentMetadataRecord>> Journal::experiment_metadata(std::uint64_t experiment_id) const {
  const std::string key = keys::experiment_metadata(experiment_id);
  auto value = get(key);
  if (!value) return fail(value.error());
  if (!*value) return std::optional<ExperimentMetadataRecord>();
  auto record = codec::decode<ExperimentMetadataRecord>(key, **value);
  if (!record) return fail(record.error());
  return std::optional(std::move(*record));
}

Result<ModelRecord> Journal::model(std::string_view name) const {
  return record_at<ModelRecord>(keys::model(name), "model '" + std::string(name) + "'");
}

Result<std::vector<ModelRecord>> Journal::models() const { return records_under<ModelRecord>(keys::models_prefix()); }

Result<std::vector<ModelVersionRecord>> Journal::model_versions(std::string_view name) const {
  return records_under<ModelVersionRecord>(keys::model_versions_prefix(name));
}

Result<std::set<std::string>> Journal::registered_checkpoints() const {
  auto versions = model_versions("");
  if (!versions) return fail(versions.error());
  std::set<std::string> uuids;
  for (const auto& version : *versions) uuids.insert(version.checkpoint_uuid);
  return uuids;
}

Result<bool> Journal::is_registered(std::string_view uuid) const {
  return registered_.contains(uuid, [this] { return model_versions(""); });
}

Result<std::vector<CheckpointRecord>> Journal::checkpoints_of_experiment(std::uint64_t experiment_id) const {
  return indexed_checkpoints(keys::checkpoint_experiment_index_prefix(experiment_id));
}

Result<std::vector<CheckpointRecord>> Journal::checkpoints_of_trial(std::uint64_t trial_id) const {
  return indexed_checkpoints(keys::checkpoint_trial_index_prefix(trial_id));
}

Result<std::vector<CheckpointRecord>> Journal::indexed_checkpoints(const std::string& prefix) const {
  return indexed<CheckpointRecord>(
      prefix, [&](std::string_view index_key) { return checkpoint(keys::checkpoint_uuid(index_key)); });
}

}  // namespace volador::storage
