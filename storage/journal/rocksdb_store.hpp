#pragma once
// The durable KeyValueStore (Journal::open): one RocksDB database in a
// folder, default column family. Every write() is one synced WriteBatch, so
// it survives a kill -9 and a power loss once it returns; concurrent synced
// writers are group-committed by RocksDB. Thread-safe. Never throws: RocksDB's
// failures come back as io errors (corruption errors for damage), each
// naming the database's folder.
//
// Damage is never silent. Beside the database, the file COMMITTED holds the
// last sequence number a write() acknowledged (rewritten, not synced, after
// each synced write: it never runs ahead of the log). Opening replays the
// write-ahead log strictly; a log that is truncated, bit-flipped or deleted
// so that acknowledged writes are missing is refused (corruption), unless
// the caller accepts the loss: then the database opens at the last
// consistent point before the damage and damage() says which writes were
// lost (their records went with the damaged log). A torn
// tail that held no acknowledged write (a power loss mid-write) is dropped
// with a note.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "storage/journal/key_value_store.hpp"

namespace rocksdb {
class DB;
class Status;
}  // namespace rocksdb

namespace volador::storage {

// What opening a damaged database found and did.
struct StoreDamage {
  std::string reason;                   // RocksDB's words, or "the write-ahead log is missing"
  std::uint64_t recovered_sequence = 0;  // the last write kept
  std::uint64_t committed_sequence = 0;  // the last write acknowledged before
  // Acknowledged writes (sequence numbers) that are not in the database.
  [[nodiscard]] std::uint64_t lost_writes() const {
    return committed_sequence > recovered_sequence ? committed_sequence - recovered_sequence : 0;
  }
};

class RocksdbStore final : public KeyValueStore {
 public:
  // Opens (creating if needed) the database in `dir`; io error "journal at
  // PATH is in use by another process" when another process (or another
  // RocksdbStore of this process) has it open. A log damaged so that
  // acknowledged writes are lost is a corruption error saying how many, and
  // nothing is changed, unless `accept_loss`.
  [[nodiscard]] static Result<std::unique_ptr<RocksdbStore>> open(const std::filesystem::path& dir,
                                                                  bool accept_loss = false);
  ~RocksdbStore() override;

  [[nodiscard]] Result<std::optional<std::string>> get(std::string_view key) const override;
  [[nodiscard]] Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override;
  [[nodiscard]] Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override;
  [[nodiscard]] Status write(const KeyValueBatch& batch) override;

  // What the opening found damaged (nullopt: nothing).
  [[nodiscard]] const std::optional<StoreDamage>& damage() const { return damage_; }

 private:
  RocksdbStore(std::filesystem::path dir, std::unique_ptr<rocksdb::DB> db, std::optional<StoreDamage> damage);

  // io (or corruption) error "journal at PATH: OPERATION: STATUS".
  Error error_of(std::string_view operation, const rocksdb::Status& status) const;
  // Records `sequence` in COMMITTED if it is the highest yet (or anyway).
  void note_committed(std::uint64_t sequence, bool even_if_lower = false);

  std::filesystem::path dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::optional<StoreDamage> damage_;
  std::mutex committed_mutex_;
  std::uint64_t committed_ = 0;
  int committed_fd_ = -1;
};

}  // namespace volador::storage
