#pragma once
// The ordered key-value layer under the Journal: byte-string keys in
// lexicographic order, point reads, prefix scans and atomic batches of
// writes. Two stores implement it: RocksdbStore (durable, on disk) and
// MemoryStore (for tests; its contents die with it). The journal's record
// layout, encoding, indexes and locking live once, in Journal, over either.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::storage {

// Writes to apply together, in the order they were added. A plain value.
class KeyValueBatch {
 public:
  struct Put {
    std::string key;
    std::string value;
  };
  struct Erase {
    std::string key;
  };
  // Every key from `begin` (included) to `end` (excluded).
  struct EraseRange {
    std::string begin;
    std::string end;
  };
  using Write = std::variant<Put, Erase, EraseRange>;

  void put(std::string key, std::string value) { writes_.emplace_back(Put{std::move(key), std::move(value)}); }
  void erase(std::string key) { writes_.emplace_back(Erase{std::move(key)}); }
  void erase_range(std::string begin, std::string end) {
    writes_.emplace_back(EraseRange{std::move(begin), std::move(end)});
  }

  [[nodiscard]] const std::vector<Write>& writes() const { return writes_; }
  [[nodiscard]] bool empty() const { return writes_.empty(); }

 private:
  std::vector<Write> writes_;
};

class KeyValueStore {
 public:
  // Gets each key and value of a scan; returns false to stop it, or an error to end it with.
  using Visitor = std::function<Result<bool>(std::string_view key, std::string_view value)>;

  virtual ~KeyValueStore() = default;

  // The value under `key`; nullopt when absent.
  [[nodiscard]] virtual Result<std::optional<std::string>> get(std::string_view key) const = 0;
  // The greatest key starting with `prefix`; nullopt when there is none.
  [[nodiscard]] virtual Result<std::optional<std::string>> last_key_with(std::string_view prefix) const = 0;
  // Visits the keys starting with `prefix` that are >= `start` (the prefix
  // itself when empty), in key order, until `visit` returns false or an error.
  [[nodiscard]] virtual Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const = 0;
  // Applies every write of `batch`, all or none; when it returns success the
  // writes are as durable as the store is (RocksdbStore: one synced write).
  [[nodiscard]] virtual Status write(const KeyValueBatch& batch) = 0;
};

// The smallest key greater than every key starting with `prefix` (empty:
// no such key, the prefix is all 0xff bytes).
std::string prefix_end(std::string prefix);

}  // namespace volador::storage
