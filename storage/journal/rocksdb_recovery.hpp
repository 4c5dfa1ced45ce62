#pragma once
// How RocksdbStore finds damage before it opens a database: the last
// acknowledged sequence number (the COMMITTED file beside the database)
// against what the write-ahead log replays, strictly and at its last
// consistent point, each in a read-only open that changes nothing.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/core/error.hpp"
#include "storage/journal/rocksdb_store.hpp"

namespace rocksdb {
struct Options;
}  // namespace rocksdb

namespace volador::storage::recovery {

// The file that holds the last acknowledged sequence number.
std::filesystem::path committed_file(const std::filesystem::path& dir);
// The sequence number COMMITTED holds; 0 when the file is absent (a new
// database, or one written before the file existed).
std::uint64_t read_committed(const std::filesystem::path& dir);
// The bytes COMMITTED holds for `sequence` (always the same length).
std::string committed_text(std::uint64_t sequence);

// nullopt when the database in `dir` replays whole with every acknowledged
// write (or does not exist yet); else what is damaged and lost. Error
// corruption when not even a consistent point can be read.
Result<std::optional<StoreDamage>> inspect(const std::filesystem::path& dir, const rocksdb::Options& options);

}  // namespace volador::storage::recovery
