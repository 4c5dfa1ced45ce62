#include "storage/journal/memory_journal.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <tuple>
#include <variant>

#include "storage/journal/journal_validation.hpp"

namespace volador::storage {
namespace {

// A copy of the value under `key`; not_found "WHAT not found" when there is none.
template <class Map, class Key>
Result<typename Map::mapped_type> stored(const Map& map, const Key& key, const std::string& what) {
  const auto found = map.find(key);
  if (found == map.end()) return fail(Error::not_found(what + " not found"));
  return found->second;
}

// Copies of the values that `keep` accepts, in key order.
template <class Map, class Keep>
std::vector<typename Map::mapped_type> values_where(const Map& map, Keep keep) {
  std::vector<typename Map::mapped_type> values;
  for (const auto& [key, value] : map) {
    if (keep(value)) values.push_back(value);
  }
  return values;
}

// Copies of every value, in key order.
template <class Map>
std::vector<typename Map::mapped_type> all_values(const Map& map) {
  return values_where(map, [](const auto&) { return true; });
}

// Ordered as Journal lists checkpoints: by (trial_id, batches, uuid).
std::vector<CheckpointRecord> in_listing_order(std::vector<CheckpointRecord> records) {
  std::ranges::sort(records, {}, [](const CheckpointRecord& r) { return std::tie(r.trial_id, r.batches, r.uuid); });
  return records;
}

}  // namespace

std::unique_ptr<Journal> Journal::in_memory() { return std::make_unique<MemoryJournal>(); }

// ---- writes ----------------------------------------------------------------

Result<std::uint64_t> MemoryJournal::next_id(std::string_view counter) {
  if (auto valid = validation::check_counter_name(counter); !valid) return fail(valid.error());
  std::lock_guard lock(mutex_);
  const auto last = counters_.try_emplace(std::string(counter), 0).first;
  return ++last->second;
}

Status MemoryJournal::write(const JournalBatch& batch) {
  for (const JournalBatch::Operation& operation : batch.operations()) {
    if (auto valid = validation::check_operation(operation); !valid) return valid;
  }
  std::lock_guard lock(mutex_);
  for (const JournalBatch::Operation& operation : batch.operations()) {
    std::visit([this](const auto& checked) { apply(checked); }, operation);
  }
  return {};
}

void MemoryJournal::apply(const ExperimentRecord& record) { experiments_[record.id] = record; }
void MemoryJournal::apply(const TrialRecord& record) { trials_[record.id] = record; }
void MemoryJournal::apply(const CheckpointRecord& record) { checkpoints_[record.uuid] = record; }
void MemoryJournal::apply(const UserRecord& record) { users_[record.name] = record; }
void MemoryJournal::apply(const TokenRecord& record) { tokens_[record.token_hash] = record; }

void MemoryJournal::apply(const JournalBatch::SearcherStatePut& put) {
  searcher_states_[put.experiment_id] = put.state;
}

void MemoryJournal::apply(const MetricRecord& record) {
  metrics_[record.trial_id].emplace(std::pair(record.kind, record.batches), record);
}

void MemoryJournal::apply(const JournalBatch::MetricsDeletion& deletion) {
  const auto reports = metrics_.find(deletion.trial_id);
  if (reports == metrics_.end()) return;
  std::erase_if(reports->second,
                [&](const auto& report) { return report.second.batches > deletion.after_batches; });
}

Result<std::uint64_t> MemoryJournal::append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) {
  std::lock_guard lock(mutex_);
  std::vector<LogLine>& stored_lines = logs_[trial_id];
  for (LogLine& line : lines) {
    line.trial_id = trial_id;
    line.seq = stored_lines.size() + 1;
    stored_lines.push_back(std::move(line));
  }
  return stored_lines.size();
}

Status MemoryJournal::put_archive(std::uint64_t experiment_id, std::string_view bytes) {
  std::lock_guard lock(mutex_);
  archives_[experiment_id] = std::string(bytes);
  return {};
}

// ---- reads -----------------------------------------------------------------

Result<ExperimentRecord> MemoryJournal::experiment(std::uint64_t id) const {
  std::lock_guard lock(mutex_);
  return stored(experiments_, id, "experiment " + std::to_string(id));
}

Result<std::vector<ExperimentRecord>> MemoryJournal::experiments() const {
  std::lock_guard lock(mutex_);
  return all_values(experiments_);
}

Result<TrialRecord> MemoryJournal::trial(std::uint64_t id) const {
  std::lock_guard lock(mutex_);
  return stored(trials_, id, "trial " + std::to_string(id));
}

Result<std::vector<TrialRecord>> MemoryJournal::trials(std::uint64_t experiment_id) const {
  std::lock_guard lock(mutex_);
  return values_where(trials_, [&](const TrialRecord& trial) { return trial.experiment_id == experiment_id; });
}

Result<std::vector<MetricRecord>> MemoryJournal::metrics(std::uint64_t trial_id) const {
  std::lock_guard lock(mutex_);
  const auto reports = metrics_.find(trial_id);
  if (reports == metrics_.end()) return std::vector<MetricRecord>();
  return all_values(reports->second);
}

Result<std::vector<LogLine>> MemoryJournal::logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                 std::size_t limit) const {
  std::lock_guard lock(mutex_);
  const auto lines = logs_.find(trial_id);
  if (lines == logs_.end() || after_seq >= lines->second.size()) return std::vector<LogLine>();
  const auto first = lines->second.begin() + static_cast<std::ptrdiff_t>(after_seq);
  const auto count = std::min<std::size_t>(limit, lines->second.size() - after_seq);
  return std::vector<LogLine>(first, first + static_cast<std::ptrdiff_t>(count));
}

Result<std::string> MemoryJournal::archive(std::uint64_t experiment_id) const {
  std::lock_guard lock(mutex_);
  return stored(archives_, experiment_id, "archive of experiment " + std::to_string(experiment_id));
}

Result<std::optional<nlohmann::json>> MemoryJournal::searcher_state(std::uint64_t experiment_id) const {
  std::lock_guard lock(mutex_);
  const auto state = searcher_states_.find(experiment_id);
  if (state == searcher_states_.end()) return std::optional<nlohmann::json>();
  return std::optional<nlohmann::json>(state->second);
}

Result<CheckpointRecord> MemoryJournal::checkpoint(std::string_view uuid) const {
  std::lock_guard lock(mutex_);
  return stored(checkpoints_, uuid, "checkpoint " + std::string(uuid));
}

Result<std::vector<CheckpointRecord>> MemoryJournal::checkpoints_of_experiment(std::uint64_t experiment_id) const {
  std::lock_guard lock(mutex_);
  return in_listing_order(
      values_where(checkpoints_, [&](const CheckpointRecord& r) { return r.experiment_id == experiment_id; }));
}

Result<std::vector<CheckpointRecord>> MemoryJournal::checkpoints_of_trial(std::uint64_t trial_id) const {
  std::lock_guard lock(mutex_);
  return in_listing_order(
      values_where(checkpoints_, [&](const CheckpointRecord& r) { return r.trial_id == trial_id; }));
}

Result<UserRecord> MemoryJournal::user(std::string_view name) const {
  std::lock_guard lock(mutex_);
  return stored(users_, name, "user '" + std::string(name) + "'");
}

Result<std::vector<UserRecord>> MemoryJournal::users() const {
  std::lock_guard lock(mutex_);
  return all_values(users_);
}

Result<TokenRecord> MemoryJournal::token(std::string_view token_hash) const {
  std::lock_guard lock(mutex_);
  return stored(tokens_, token_hash, "token");
}

}  // namespace volador::storage
