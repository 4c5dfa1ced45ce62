#pragma once
// A Journal held in memory, for tests of actors and pure services that need
// no disk (Journal::in_memory). Not durable: its records die with it. Else it
// keeps the Journal contract as the RocksDB journal does: the same orderings,
// the same refusals (journal_validation.hpp; not mirrored: the on-disk
// format's size limits, a field over 512 MiB), all-or-nothing commits.
// Thread-safe: one mutex guards every call.

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/journal/journal.hpp"

namespace volador::storage {

class MemoryJournal final : public Journal {
 public:
  // invalid_argument for an empty counter name; else 1, 2, ... per name.
  [[nodiscard]] Result<std::uint64_t> next_id(std::string_view counter) override;
  // Checks every operation (journal_validation.hpp) before applying any, in order.
  [[nodiscard]] Status write(const JournalBatch& batch) override;
  // With no lines, returns the trial's last seq (0 if none).
  [[nodiscard]] Result<std::uint64_t> append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) override;
  // Stores a copy of `bytes`; never fails.
  [[nodiscard]] Status put_archive(std::uint64_t experiment_id, std::string_view bytes) override;

  // Reads return copies of the stored records.

  // not_found for an unknown id.
  [[nodiscard]] Result<ExperimentRecord> experiment(std::uint64_t id) const override;
  // All of them, by id.
  [[nodiscard]] Result<std::vector<ExperimentRecord>> experiments() const override;
  // not_found for an unknown id.
  [[nodiscard]] Result<TrialRecord> trial(std::uint64_t id) const override;
  // The experiment's trials, by id; empty when none.
  [[nodiscard]] Result<std::vector<TrialRecord>> trials(std::uint64_t experiment_id) const override;
  // The trial's reports by (kind, batches, order of append); empty when none.
  [[nodiscard]] Result<std::vector<MetricRecord>> metrics(std::uint64_t trial_id) const override;
  // At most `limit` lines with seq > after_seq, by seq.
  [[nodiscard]] Result<std::vector<LogLine>> logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                  std::size_t limit) const override;
  // not_found when none was put for the experiment.
  [[nodiscard]] Result<std::string> archive(std::uint64_t experiment_id) const override;
  // nullopt when none was put for the experiment.
  [[nodiscard]] Result<std::optional<nlohmann::json>> searcher_state(std::uint64_t experiment_id) const override;
  // not_found for an unknown uuid.
  [[nodiscard]] Result<CheckpointRecord> checkpoint(std::string_view uuid) const override;
  // Deleted ones included, by (trial_id, batches, uuid); empty when none.
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_experiment(
      std::uint64_t experiment_id) const override;
  // Deleted ones included, by (batches, uuid); empty when none.
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_trial(std::uint64_t trial_id) const override;
  // not_found for an unknown name.
  [[nodiscard]] Result<UserRecord> user(std::string_view name) const override;
  // By name; empty when none.
  [[nodiscard]] Result<std::vector<UserRecord>> users() const override;
  // not_found for an unknown hash.
  [[nodiscard]] Result<TokenRecord> token(std::string_view token_hash) const override;

 private:
  // A trial's metric reports by (kind, batches); reports with equal keys stay in append order.
  using MetricReports = std::multimap<std::pair<MetricKind, std::uint64_t>, MetricRecord>;

  // Applies one operation of a checked batch; the caller holds mutex_.
  void apply(const ExperimentRecord& record);
  void apply(const TrialRecord& record);
  void apply(const JournalBatch::SearcherStatePut& put);
  void apply(const CheckpointRecord& record);
  void apply(const MetricRecord& record);
  void apply(const JournalBatch::MetricsDeletion& deletion);
  void apply(const UserRecord& record);
  void apply(const TokenRecord& record);

  mutable std::mutex mutex_;
  std::map<std::string, std::uint64_t, std::less<>> counters_;  // last value handed out
  std::map<std::uint64_t, ExperimentRecord> experiments_;
  std::map<std::uint64_t, TrialRecord> trials_;
  std::map<std::uint64_t, MetricReports> metrics_;                    // by trial
  std::map<std::uint64_t, std::vector<LogLine>> logs_;                // by trial; line i has seq i + 1
  std::map<std::uint64_t, std::string> archives_;                     // by experiment
  std::map<std::uint64_t, nlohmann::json> searcher_states_;           // by experiment
  std::map<std::string, CheckpointRecord, std::less<>> checkpoints_;  // by uuid
  std::map<std::string, UserRecord, std::less<>> users_;              // by name
  std::map<std::string, TokenRecord, std::less<>> tokens_;            // by hash
};

}  // namespace volador::storage
