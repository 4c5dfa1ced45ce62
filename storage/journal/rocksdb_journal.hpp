#pragma once
// The RocksDB implementation of Journal (key layout: journal_keys.hpp; values:
// Cap'n Proto records of schemas/journal.capnp, journal_codec.hpp). Each
// mutating call writes one synced WriteBatch; concurrent synced writers are
// group-committed by RocksDB. Thread-safe. Never throws: RocksDB and decoding failures come back as io and
// corruption errors naming the journal's path or the record's key.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "storage/journal/journal.hpp"

namespace rocksdb {
class DB;
class Status;
class WriteBatch;
}  // namespace rocksdb

namespace volador::storage {

class RocksdbJournal final : public Journal {
 public:
  // Opens (creating if needed) the database in `dir`; io error "journal at
  // PATH is in use by another process" when another process (or another
  // RocksdbJournal of this process) has it open.
  [[nodiscard]] static Result<std::unique_ptr<RocksdbJournal>> open(const std::filesystem::path& dir);
  ~RocksdbJournal() override;

  [[nodiscard]] Result<std::uint64_t> next_id(std::string_view counter) override;
  // Holds, from its first read to its write, the locks of the trials whose
  // metrics it appends or deletes (so their seqs and deletions are serialised
  // with other commits and append_logs) and, with checkpoints, the checkpoint
  // lock (a replace moves the old record's index entries).
  [[nodiscard]] Status write(const JournalBatch& batch) override;
  // With no lines, writes nothing and returns the trial's last seq (0 if none).
  [[nodiscard]] Result<std::uint64_t> append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) override;
  [[nodiscard]] Status put_archive(std::uint64_t experiment_id, std::string_view bytes) override;

  [[nodiscard]] Result<ExperimentRecord> experiment(std::uint64_t id) const override;
  [[nodiscard]] Result<std::vector<ExperimentRecord>> experiments() const override;
  [[nodiscard]] Result<TrialRecord> trial(std::uint64_t id) const override;
  // Trials indexed under the experiment (a trial's experiment_id never changes).
  [[nodiscard]] Result<std::vector<TrialRecord>> trials(std::uint64_t experiment_id) const override;
  [[nodiscard]] Result<std::vector<MetricRecord>> metrics(std::uint64_t trial_id) const override;
  [[nodiscard]] Result<std::vector<LogLine>> logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                  std::size_t limit) const override;
  [[nodiscard]] Result<std::string> archive(std::uint64_t experiment_id) const override;
  [[nodiscard]] Result<std::optional<nlohmann::json>> searcher_state(std::uint64_t experiment_id) const override;
  [[nodiscard]] Result<CheckpointRecord> checkpoint(std::string_view uuid) const override;
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_experiment(
      std::uint64_t experiment_id) const override;
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_trial(std::uint64_t trial_id) const override;
  [[nodiscard]] Result<UserRecord> user(std::string_view name) const override;
  [[nodiscard]] Result<std::vector<UserRecord>> users() const override;
  [[nodiscard]] Result<TokenRecord> token(std::string_view token_hash) const override;

 private:
  // Serialises the metric and log writes of one trial; caches its last log seq once known.
  struct TrialAppends {
    std::mutex mutex;
    std::optional<std::uint64_t> last_log_seq;
  };
  // Adds a commit's operations to a WriteBatch (rocksdb_journal_commit.cpp).
  class BatchBuilder;

  RocksdbJournal(std::filesystem::path dir, std::unique_ptr<rocksdb::DB> db);

  Status write(rocksdb::WriteBatch& batch) const;
  // nullopt when the key is absent.
  Result<std::optional<std::string>> get(const std::string& key) const;
  Result<std::string> get_required(const std::string& key, std::string_view what) const;
  // The record under `key`; not_found "WHAT not found" when absent.
  template <class Record>
  Result<Record> record_at(const std::string& key, std::string_view what) const;
  // Every record under `prefix`, in key order.
  template <class Record>
  Result<std::vector<Record>> records_under(const std::string& prefix) const;
  // The trailing id of the last key starting with `prefix`, 0 if none.
  Result<std::uint64_t> last_id_under(const std::string& prefix) const;
  // Calls visit(key, value) for keys starting with `prefix`, from `start`
  // (default: the prefix), until visit returns false or an error.
  template <class Visit>
  Status scan(const std::string& prefix, Visit visit, const std::string& start = {}) const;
  // The records that the index keys under `prefix` point to, in key order;
  // lookup(index_key) reads one. An index key whose record is missing is corruption.
  template <class Record, class Lookup>
  Result<std::vector<Record>> indexed(const std::string& prefix, Lookup lookup) const;
  Result<std::vector<CheckpointRecord>> indexed_checkpoints(const std::string& prefix) const;
  TrialAppends& appends_of(std::uint64_t trial_id);
  // The locks commit() holds for `batch`, taken in one global order (the
  // checkpoint lock, then trials by id) so that concurrent commits never deadlock.
  std::vector<std::unique_lock<std::mutex>> lock_for(const JournalBatch& batch);
  // io (or corruption) error naming the journal's path and RocksDB's status.
  Error io_error(std::string_view operation, const rocksdb::Status& status) const;

  std::filesystem::path dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::mutex counters_mutex_;
  std::map<std::string, std::uint64_t, std::less<>> counters_;  // last value handed out
  std::mutex checkpoints_mutex_;
  std::mutex appends_mutex_;
  // Entries are never erased: a few bytes per trial the master has seen.
  std::unordered_map<std::uint64_t, std::unique_ptr<TrialAppends>> appends_;
};

}  // namespace volador::storage
