#pragma once
// The durable KeyValueStore (Journal::open): one RocksDB database in a
// folder, default column family. Every write() is one synced WriteBatch, so
// it survives a kill -9 and a power loss once it returns; concurrent synced
// writers are group-committed by RocksDB. Thread-safe. Never throws: RocksDB's
// failures come back as io errors (corruption errors for damage), each
// naming the database's folder.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "storage/journal/key_value_store.hpp"

namespace rocksdb {
class DB;
class Status;
}  // namespace rocksdb

namespace volador::storage {

class RocksdbStore final : public KeyValueStore {
 public:
  // Opens (creating if needed) the database in `dir`; io error "journal at
  // PATH is in use by another process" when another process (or another
  // RocksdbStore of this process) has it open.
  [[nodiscard]] static Result<std::unique_ptr<RocksdbStore>> open(const std::filesystem::path& dir);
  ~RocksdbStore() override;

  [[nodiscard]] Result<std::optional<std::string>> get(std::string_view key) const override;
  [[nodiscard]] Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override;
  [[nodiscard]] Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override;
  [[nodiscard]] Status write(const KeyValueBatch& batch) override;

 private:
  RocksdbStore(std::filesystem::path dir, std::unique_ptr<rocksdb::DB> db);

  // io (or corruption) error "journal at PATH: OPERATION: STATUS".
  Error error_of(std::string_view operation, const rocksdb::Status& status) const;

  std::filesystem::path dir_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace volador::storage
