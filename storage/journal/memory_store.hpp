#pragma once
// A KeyValueStore in memory (Journal::in_memory): an ordered map under a
// readers-writer lock. Not durable: its contents die with it. Never fails.

#include <map>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "storage/journal/key_value_store.hpp"

namespace volador::storage {

class MemoryStore final : public KeyValueStore {
 public:
  [[nodiscard]] Result<std::optional<std::string>> get(std::string_view key) const override;
  [[nodiscard]] Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override;
  // Holds a read lock for the whole scan: `visit` must not write to this store.
  [[nodiscard]] Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override;
  [[nodiscard]] Status write(const KeyValueBatch& batch) override;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, std::string, std::less<>> entries_;
};

}  // namespace volador::storage
