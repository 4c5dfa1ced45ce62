#pragma once
// The master's journal: every record a user would miss after a crash, in an
// embedded RocksDB (Journal::open), or in memory for tests (Journal::in_memory,
// not durable). Durability contract of the RocksDB journal: a call that
// returns success has written its records with sync = true (one synced write
// batch per call), so they survive a kill -9 of the master and a power loss.
// Both: commit() writes several records all or nothing. Thread-safe: actors on
// any thread may call any method concurrently.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"
#include "runtime/core/states.hpp"
#include "schemas/journal.records.hpp"
#include "storage/journal/journal_stats.hpp"

namespace volador::storage {

// The records (ExperimentRecord, TrialRecord, MetricRecord, LogLine,
// CheckpointRecord, ...) are generated from schemas/journal.capnp, which
// documents their fields.
using volador::CheckpointState;  // schemas/states.capnp
using volador::MetricKind;       // schemas/states.capnp
static_assert(std::is_same_v<decltype(MetricRecord::metrics), MetricMap>);

// Records to write together, all or nothing (Journal::commit). Operations
// apply in the order they were added, e.g. a delete_metrics_after followed by
// append_metrics keeps the appended report. A plain value: build it anywhere.
class JournalBatch {
 public:
  struct SearcherStatePut {
    std::uint64_t experiment_id = 0;
    nlohmann::json state;
  };
  struct MetricsDeletion {
    std::uint64_t trial_id = 0;
    std::uint64_t after_batches = 0;
  };
  using Operation = std::variant<ExperimentRecord, TrialRecord, SearcherStatePut, CheckpointRecord,
                                 MetricRecord, MetricsDeletion, UserRecord, TokenRecord>;

  // The meaning of each operation is that of the Journal method of the same name.
  JournalBatch& put_experiment(ExperimentRecord record);
  JournalBatch& put_trial(TrialRecord record);
  JournalBatch& put_searcher_state(std::uint64_t experiment_id, nlohmann::json state);
  JournalBatch& put_checkpoint(CheckpointRecord record);
  JournalBatch& append_metrics(MetricRecord record);
  JournalBatch& delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches);
  JournalBatch& put_user(UserRecord record);
  JournalBatch& put_token(TokenRecord record);

  [[nodiscard]] const std::vector<Operation>& operations() const { return operations_; }
  [[nodiscard]] bool empty() const { return operations_.empty(); }

 private:
  JournalBatch& add(Operation operation);

  std::vector<Operation> operations_;
};

class Journal {
 public:
  // Opens (creating if needed) the journal in `dir`. Error io/corruption when
  // RocksDB cannot open it (including when another process holds its lock).
  [[nodiscard]] static Result<std::unique_ptr<Journal>> open(const std::filesystem::path& dir);
  // An empty journal in memory (memory_journal.hpp): for tests of actors and
  // services that need no disk. Not durable: its records die with it.
  [[nodiscard]] static std::unique_ptr<Journal> in_memory();
  virtual ~Journal() = default;

  // Next value of a named durable counter ("experiment", "trial"): 1, 2, ...
  // Never repeats, even across restarts.
  [[nodiscard]] virtual Result<std::uint64_t> next_id(std::string_view counter) = 0;

  // Writes every operation of `batch` at once (RocksDB: in one synced
  // write), or none of them.
  // A record that cannot be encoded (invalid_argument: e.g. JSON that is not
  // UTF-8, an empty checkpoint uuid) fails the commit before anything is
  // written. An empty batch writes nothing.
  [[nodiscard]] Status commit(const JournalBatch& batch);

  // One-operation commits.

  // Inserts or replaces the record with the same id.
  [[nodiscard]] Status put_experiment(const ExperimentRecord& record);
  [[nodiscard]] Status put_trial(const TrialRecord& record);
  // Appends; records of one trial come back ordered by (kind, batches, order of append).
  [[nodiscard]] Status append_metrics(const MetricRecord& record);
  // Deletes the trial's metric reports (both kinds) with batches > `batches`,
  // e.g. before a restart from the checkpoint at `batches` re-runs them.
  [[nodiscard]] Status delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches);
  // Inserts or replaces the checkpoint with the same uuid.
  [[nodiscard]] Status put_checkpoint(const CheckpointRecord& record);
  // The searcher's whole state (Searcher::save_state()).
  [[nodiscard]] Status put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state);
  // Inserts or replaces the user with the same name (invalid_argument for an empty name).
  [[nodiscard]] Status put_user(const UserRecord& record);
  // Inserts or replaces the token with the same hash (invalid_argument for an empty hash).
  [[nodiscard]] Status put_token(const TokenRecord& record);

  // Appends lines, assigning their seq; returns the seq of the last one.
  [[nodiscard]] virtual Result<std::uint64_t> append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) = 0;
  // The packed model definition of an experiment (see storage/archives).
  [[nodiscard]] virtual Status put_archive(std::uint64_t experiment_id, std::string_view bytes) = 0;

  // Reads. not_found for an unknown id or uuid.
  [[nodiscard]] virtual Result<ExperimentRecord> experiment(std::uint64_t id) const = 0;
  [[nodiscard]] virtual Result<std::vector<ExperimentRecord>> experiments() const = 0;  // by id
  [[nodiscard]] virtual Result<TrialRecord> trial(std::uint64_t id) const = 0;
  // By id.
  [[nodiscard]] virtual Result<std::vector<TrialRecord>> trials(std::uint64_t experiment_id) const = 0;
  [[nodiscard]] virtual Result<std::vector<MetricRecord>> metrics(std::uint64_t trial_id) const = 0;
  // Lines with seq > after_seq, at most `limit` of them, by seq.
  [[nodiscard]] virtual Result<std::vector<LogLine>> logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                          std::size_t limit) const = 0;
  [[nodiscard]] virtual Result<std::string> archive(std::uint64_t experiment_id) const = 0;
  // nullopt when none was stored yet.
  [[nodiscard]] virtual Result<std::optional<nlohmann::json>> searcher_state(
      std::uint64_t experiment_id) const = 0;
  [[nodiscard]] virtual Result<CheckpointRecord> checkpoint(std::string_view uuid) const = 0;
  // Deleted ones included; ordered by (trial_id, batches, uuid). Empty when none.
  [[nodiscard]] virtual Result<std::vector<CheckpointRecord>> checkpoints_of_experiment(
      std::uint64_t experiment_id) const = 0;
  [[nodiscard]] virtual Result<std::vector<CheckpointRecord>> checkpoints_of_trial(std::uint64_t trial_id) const = 0;
  // not_found for an unknown name.
  [[nodiscard]] virtual Result<UserRecord> user(std::string_view name) const = 0;
  // Every user, by name. Empty when none.
  [[nodiscard]] virtual Result<std::vector<UserRecord>> users() const = 0;
  // not_found for an unknown hash.
  [[nodiscard]] virtual Result<TokenRecord> token(std::string_view token_hash) const = 0;

  // What this journal has written since it was opened.
  [[nodiscard]] JournalStats::Snapshot stats() const { return stats_.snapshot(); }

 protected:
  // commit()'s work, without the counting: the implementation's own.
  [[nodiscard]] virtual Status write(const JournalBatch& batch) = 0;

 private:
  JournalStats stats_;
};

}  // namespace volador::storage
