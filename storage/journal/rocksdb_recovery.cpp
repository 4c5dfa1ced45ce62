#include "storage/journal/rocksdb_recovery.hpp"

#include <charconv>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include <rocksdb/db.h>
#include <rocksdb/options.h>

namespace volador::storage::recovery {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCommittedTag = "volador-journal-committed ";

// The database replayed read-only with `mode`; its status when it cannot be.
struct ReadOnlyView {
  rocksdb::Status status;
  std::unique_ptr<rocksdb::DB> db;
};

ReadOnlyView open_read_only(const fs::path& dir, rocksdb::Options options, rocksdb::WALRecoveryMode mode) {
  options.wal_recovery_mode = mode;
  options.create_if_missing = false;
  rocksdb::DB* db = nullptr;
  ReadOnlyView view;
  view.status = rocksdb::DB::OpenForReadOnly(options, dir.string(), &db);
  view.db.reset(db);
  return view;
}

// The damage of a log that does not replay strictly: its last consistent point.
Result<StoreDamage> damage_of_broken_log(const fs::path& dir, const rocksdb::Options& options, std::string reason) {
  ReadOnlyView consistent = open_read_only(dir, options, rocksdb::WALRecoveryMode::kPointInTimeRecovery);
  if (!consistent.status.ok()) {
    return fail(Error::corruption("journal at " + dir.string() + " cannot be read even up to its damage (" + reason +
                                  "; then: " + consistent.status.ToString() + ")"));
  }
  return StoreDamage{.reason = std::move(reason), .recovered_sequence = consistent.db->GetLatestSequenceNumber()};
}

}  // namespace

fs::path committed_file(const fs::path& dir) { return dir / "COMMITTED"; }

std::string committed_text(std::uint64_t sequence) {
  std::string digits = std::to_string(sequence);
  return std::string(kCommittedTag) + std::string(20 - digits.size(), '0') + digits + "\n";
}

std::uint64_t read_committed(const fs::path& dir) {
  std::ifstream in(committed_file(dir), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!text.starts_with(kCommittedTag)) return 0;
  std::uint64_t sequence = 0;
  const std::string_view digits = std::string_view(text).substr(kCommittedTag.size());
  std::from_chars(digits.data(), digits.data() + digits.size(), sequence);
  return sequence;
}

Result<std::optional<StoreDamage>> inspect(const fs::path& dir, const rocksdb::Options& options) {
  const std::uint64_t committed = read_committed(dir);
  ReadOnlyView strict = open_read_only(dir, options, rocksdb::WALRecoveryMode::kAbsoluteConsistency);
  if (!strict.status.ok() && !strict.status.IsCorruption()) return std::nullopt;  // new, or the open will say
  if (strict.status.ok()) {
    const std::uint64_t recovered = strict.db->GetLatestSequenceNumber();
    if (recovered >= committed) return std::nullopt;
    return StoreDamage{.reason = "the write-ahead log is missing writes it acknowledged (deleted or replaced)",
                       .recovered_sequence = recovered,
                       .committed_sequence = committed};
  }
  strict.db.reset();
  auto damage = damage_of_broken_log(dir, options, "the write-ahead log is damaged: " + strict.status.ToString());
  if (!damage) return fail(damage.error());
  damage->committed_sequence = committed;
  return std::optional<StoreDamage>(std::move(*damage));
}

}  // namespace volador::storage::recovery
