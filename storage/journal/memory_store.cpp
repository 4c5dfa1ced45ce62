#include "storage/journal/memory_store.hpp"

#include <mutex>

#include "runtime/core/overloaded.hpp"

namespace volador::storage {

Result<std::optional<std::string>> MemoryStore::get(std::string_view key) const {
  std::shared_lock lock(mutex_);
  const auto found = entries_.find(key);
  if (found == entries_.end()) return std::nullopt;
  return found->second;
}

Result<std::optional<std::string>> MemoryStore::last_key_with(std::string_view prefix) const {
  std::shared_lock lock(mutex_);
  const std::string end = prefix_end(std::string(prefix));
  auto after = end.empty() ? entries_.end() : entries_.lower_bound(end);
  if (after == entries_.begin()) return std::nullopt;
  const std::string& last = std::prev(after)->first;
  if (!last.starts_with(prefix)) return std::nullopt;
  return last;
}

Status MemoryStore::scan(std::string_view prefix, std::string_view start, const Visitor& visit) const {
  std::shared_lock lock(mutex_);
  const std::string end = prefix_end(std::string(prefix));
  for (auto it = entries_.lower_bound(start.empty() ? prefix : start); it != entries_.end(); ++it) {
    if (!end.empty() && it->first >= end) break;
    Result<bool> more = visit(it->first, it->second);
    if (!more) return fail(more.error());
    if (!*more) break;
  }
  return {};
}

Status MemoryStore::write(const KeyValueBatch& batch) {
  std::unique_lock lock(mutex_);
  for (const KeyValueBatch::Write& write : batch.writes()) {
    std::visit(Overloaded{
                   [&](const KeyValueBatch::Put& put) { entries_.insert_or_assign(put.key, put.value); },
                   [&](const KeyValueBatch::Erase& erase) { entries_.erase(erase.key); },
                   [&](const KeyValueBatch::EraseRange& range) {
                     if (range.begin < range.end) {
                       entries_.erase(entries_.lower_bound(range.begin), entries_.lower_bound(range.end));
                     }
                   },
               },
               write);
  }
  return {};
}

}  // namespace volador::storage
