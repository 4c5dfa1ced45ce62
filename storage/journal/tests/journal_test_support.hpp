#pragma once
// Shared by the journal's test files: the journals under test, temporary
// folders, sample records, record comparisons, and child processes of
// this test binary.

#include <catch2/catch.hpp>

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/journal/journal.hpp"
#include "storage/journal/memory_store.hpp"

namespace volador::storage::testing {

// A fresh folder under the system temp dir, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path journal() const { return path / "journal"; }
};

// A store in memory that calls `on_seek` before each seek for a last key
// (last_key_with): the seek fails with its error, or goes on. What it
// captures must outlive the store.
class SeekHookStore final : public KeyValueStore {
 public:
  explicit SeekHookStore(std::function<Status()> on_seek) : on_seek_(std::move(on_seek)) {}
  Result<std::optional<std::string>> get(std::string_view key) const override { return store_.get(key); }
  Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override {
    if (auto allowed = on_seek_(); !allowed) return fail(allowed.error());
    return store_.last_key_with(prefix);
  }
  Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override {
    return store_.scan(prefix, start, visit);
  }
  Status write(const KeyValueBatch& batch) override { return store_.write(batch); }

 private:
  MemoryStore store_;
  std::function<Status()> on_seek_;
};

// A store in memory whose writes wait until open() is called: what a
// journal queues stays unwritten meanwhile. Open it before the journal
// using it is destroyed (the journal writes what is queued then).
class GatedStore final : public KeyValueStore {
 public:
  Result<std::optional<std::string>> get(std::string_view key) const override { return store_.get(key); }
  Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override {
    return store_.last_key_with(prefix);
  }
  Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override {
    return store_.scan(prefix, start, visit);
  }
  Status write(const KeyValueBatch& batch) override {
    std::unique_lock lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
    return store_.write(batch);
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  MemoryStore store_;
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

// A SeekHookStore that counts its seeks in `seeks`; read it after a commit has returned.
inline std::unique_ptr<KeyValueStore> seek_counting_store(std::uint64_t& seeks) {
  return std::make_unique<SeekHookStore>([&seeks] {
    ++seeks;
    return Status{};
  });
}

// Opens the journal in `dir`, failing the test case when it cannot.
std::unique_ptr<Journal> open_journal(const std::filesystem::path& dir);

// The journals that the shared test cases run against, one type per
// implementation (TEMPLATE_TEST_CASE): `journal` starts empty; reopen() closes
// and opens it again, where there is something to reopen.
struct RocksdbUnderTest {
  TempDir tmp;
  std::unique_ptr<Journal> journal = open_journal(tmp.journal());
  // Closes the database, then opens its folder again.
  void reopen();
};
struct MemoryUnderTest {
  std::unique_ptr<Journal> journal = Journal::in_memory();
  // Keeps the journal as it is: memory has nothing to reopen.
  void reopen() {}
};

ExperimentRecord make_experiment(std::uint64_t id);
TrialRecord make_trial(std::uint64_t id, std::uint64_t experiment_id);
CheckpointRecord make_checkpoint(std::string uuid, std::uint64_t experiment_id, std::uint64_t trial_id,
                                 std::uint64_t batches);
MetricRecord make_metrics(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, double loss);
// Unnumbered stdout lines (trial_id and seq 0) with these texts.
std::vector<LogLine> make_lines(std::initializer_list<const char*> texts);
// The seq of each line, in order.
std::vector<std::uint64_t> seqs(const std::vector<LogLine>& lines);

// Checks that the trial's log reads as `texts` (line seq s holds texts[s - 1])
// whichever line a page starts after (0 to past the last) and however many
// lines it asks for, as every reader pages it (trial logs, --tail, follow,
// the API).
void check_every_log_page(const Journal& journal, std::uint64_t trial_id, const std::vector<std::string>& texts);

// Checks that two records are equal; a failure shows both as JSON.
template <class Record>
void check_same(const Record& a, const Record& b) {
  INFO(nlohmann::json(a).dump() << "\nand\n" << nlohmann::json(b).dump());
  CHECK(a == b);
}

// Runs one hidden test case of this binary in a child process (fresh, so no
// RocksDB state is inherited), with child_dir() returning `dir` there.
pid_t spawn_child(const std::string& test_name, const std::filesystem::path& dir);
// The folder the parent passed, or nullptr outside a child.
const char* child_dir();

}  // namespace volador::storage::testing
