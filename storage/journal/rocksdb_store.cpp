#include "storage/journal/rocksdb_store.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include "runtime/core/overloaded.hpp"
#include "storage/journal/rocksdb_recovery.hpp"

namespace volador::storage {
namespace {

namespace fs = std::filesystem;

// RocksDB reports a held LOCK file as an IO error with one of these texts.
bool is_lock_conflict(const rocksdb::Status& status) {
  const std::string message = status.ToString();
  return status.IsIOError() && (message.find("While lock file") != std::string::npos ||
                                message.find("lock hold by current process") != std::string::npos);
}

constexpr std::size_t kWriteBufferBytes = 16 << 20;

rocksdb::Options database_options() {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.keep_log_file_num = 4;
  // The memtable is most of the master's memory: about 4 KB per trivial
  // trial (its records with the skip list's and the arena's overhead). At
  // RocksDB's default (64 MiB, and a second one filling while the first is
  // flushed) it grew for the first ~16,000 trials of a search; 16 MiB caps
  // it at about 32 MiB, reached after ~4,000, for a flush every ~4,000
  // trials (an L0 file; a compaction every four).
  options.write_buffer_size = kWriteBufferBytes;
  // Archives (up to ~100 MiB) go to blob files instead of being rewritten by
  // compactions.
  options.enable_blob_files = true;
  options.min_blob_size = 64 << 10;
  return options;
}

rocksdb::Slice slice_of(std::string_view bytes) { return {bytes.data(), bytes.size()}; }

// The first refusal of `batch`'s writes by the WriteBatch (over RocksDB's size
// limits), if any.
rocksdb::Status fill(rocksdb::WriteBatch& into, const KeyValueBatch& batch) {
  for (const KeyValueBatch::Write& write : batch.writes()) {
    const rocksdb::Status added = std::visit(
        Overloaded{
            [&](const KeyValueBatch::Put& put) { return into.Put(put.key, put.value); },
            [&](const KeyValueBatch::Erase& erase) { return into.Delete(erase.key); },
            [&](const KeyValueBatch::EraseRange& range) {
              return range.begin < range.end ? into.DeleteRange(range.begin, range.end) : rocksdb::Status::OK();
            },
        },
        write);
    if (!added.ok()) return added;
  }
  return rocksdb::Status::OK();
}

// The refusal of a log whose damage loses acknowledged writes.
Error refusal_of(const fs::path& dir, const StoreDamage& damage) {
  std::string message = "journal at " + dir.string() + " is damaged: " + damage.reason + ". It holds writes up to " +
                        std::to_string(damage.recovered_sequence) + ", but writes up to " +
                        std::to_string(damage.committed_sequence) + " were acknowledged: " +
                        std::to_string(damage.lost_writes()) + " acknowledged write(s) would be lost";
  return Error::corruption(message +
                           ". Nothing was changed. Restore the folder from a backup, or accept the loss to open it "
                           "at its last consistent point (volador-node --accept-journal-loss).");
}

}  // namespace

Result<std::unique_ptr<RocksdbStore>> RocksdbStore::open(const fs::path& dir, bool accept_loss) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(Error::io("cannot create journal folder " + dir.string() + ": " + ec.message()));
  rocksdb::Options options = database_options();
  auto damage = recovery::inspect(dir, options);
  if (!damage) return fail(damage.error());
  if (*damage && (*damage)->lost_writes() > 0 && !accept_loss) return fail(refusal_of(dir, **damage));
  options.wal_recovery_mode = *damage ? rocksdb::WALRecoveryMode::kPointInTimeRecovery
                                      : rocksdb::WALRecoveryMode::kAbsoluteConsistency;
  rocksdb::DB* db = nullptr;
  const rocksdb::Status status = rocksdb::DB::Open(options, dir.string(), &db);
  if (is_lock_conflict(status)) {
    return fail(Error::io("journal at " + dir.string() + " is in use by another process (" + status.ToString() + ")"));
  }
  if (!status.ok()) {
    const std::string message = "cannot open journal at " + dir.string() + ": " + status.ToString();
    return fail(status.IsCorruption() ? Error::corruption(message) : Error::io(message));
  }
  std::unique_ptr<RocksdbStore> store(new RocksdbStore(dir, std::unique_ptr<rocksdb::DB>(db), std::move(*damage)));
  store->committed_fd_ = ::open(recovery::committed_file(dir).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (store->committed_fd_ < 0) {
    return fail(Error::io("cannot open " + recovery::committed_file(dir).string() + ": " + std::strerror(errno)));
  }
  store->note_committed(store->db_->GetLatestSequenceNumber(), /*even_if_lower=*/true);
  return store;
}

RocksdbStore::RocksdbStore(fs::path dir, std::unique_ptr<rocksdb::DB> db, std::optional<StoreDamage> damage)
    : dir_(std::move(dir)), db_(std::move(db)), damage_(std::move(damage)) {}

RocksdbStore::~RocksdbStore() {
  if (committed_fd_ >= 0) ::close(committed_fd_);
}

void RocksdbStore::note_committed(std::uint64_t sequence, bool even_if_lower) {
  std::lock_guard lock(committed_mutex_);
  if (sequence <= committed_ && !even_if_lower) return;
  committed_ = sequence;
  const std::string text = recovery::committed_text(sequence);
  // Not synced: the page cache survives the master's own crash, and after a
  // power loss a lagging value only weakens the check, never fakes a loss.
  if (::pwrite(committed_fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    committed_ = 0;  // unknown: the next write tries again
  }
}

Error RocksdbStore::error_of(std::string_view operation, const rocksdb::Status& status) const {
  std::string message = "journal at " + dir_.string() + ": " + std::string(operation) + ": " + status.ToString();
  return status.IsCorruption() ? Error::corruption(std::move(message)) : Error::io(std::move(message));
}

Result<std::optional<std::string>> RocksdbStore::get(std::string_view key) const {
  std::string value;
  const rocksdb::Status status = db_->Get(rocksdb::ReadOptions(), slice_of(key), &value);
  if (status.IsNotFound()) return std::nullopt;
  if (!status.ok()) return fail(error_of("read", status));
  return value;
}

Result<std::optional<std::string>> RocksdbStore::last_key_with(std::string_view prefix) const {
  const std::string end = prefix_end(std::string(prefix));
  const rocksdb::Slice lower = slice_of(prefix);
  rocksdb::ReadOptions options;
  options.iterate_lower_bound = &lower;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options));
  if (end.empty()) {
    it->SeekToLast();
  } else {
    it->SeekForPrev(end);
    if (it->Valid() && it->key() == rocksdb::Slice(end)) it->Prev();
  }
  if (!it->status().ok()) return fail(error_of("seek", it->status()));
  if (!it->Valid() || !it->key().starts_with(slice_of(prefix))) return std::nullopt;
  return it->key().ToString();
}

Status RocksdbStore::scan(std::string_view prefix, std::string_view start, const Visitor& visit) const {
  const std::string end = prefix_end(std::string(prefix));
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions options;
  if (!end.empty()) options.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(options));
  for (it->Seek(slice_of(start.empty() ? prefix : start)); it->Valid(); it->Next()) {
    if (!it->key().starts_with(slice_of(prefix))) break;
    Result<bool> more = visit(it->key().ToStringView(), it->value().ToStringView());
    if (!more) return fail(more.error());
    if (!*more) return {};
  }
  if (!it->status().ok()) return fail(error_of("scan", it->status()));
  return {};
}

Status RocksdbStore::write(const KeyValueBatch& batch) {
  rocksdb::WriteBatch write_batch;
  if (const rocksdb::Status added = fill(write_batch, batch); !added.ok())
    return fail(error_of("add to a write", added));
  rocksdb::WriteOptions options;
  options.sync = true;
  const rocksdb::Status status = db_->Write(options, &write_batch);
  if (!status.ok()) return fail(error_of("write", status));
  note_committed(db_->GetLatestSequenceNumber());
  return {};
}

}  // namespace volador::storage
