#pragma once
// Group commit: journal batches handed in by any number of threads are
// written by one writer thread, everything queued at that moment in one
// write (one synced write: one fsync for many events), in the order they
// were queued. A batch's completion runs only after the write that carried
// it, so whoever acknowledges on completion acknowledges durable records.
// A batch that fails on its own (a record that cannot be encoded) fails
// alone: when a group's write fails, its batches are written one at a time.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>

#include "runtime/core/error.hpp"

namespace volador::storage {

class JournalBatch;

class GroupCommitter {
 public:
  // Writes the batches, in order, all or none of them.
  using Write = std::function<Status(std::span<const JournalBatch* const>)>;
  // The outcome of one batch's write. Runs on the writer thread: it must not
  // wait for another commit (commit() from it would deadlock; submit() is fine).
  using Done = std::function<void(const Status&)>;

  // At most `max_group_operations` operations per write (a single larger batch goes alone).
  explicit GroupCommitter(Write write, std::size_t max_group_operations = 20000);
  // Writes what is queued, runs its completions, then stops the writer thread.
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // Queues `batch`; `done` runs after its write (the batch is kept until then).
  void submit(std::shared_ptr<const JournalBatch> batch, Done done);
  // Queues `batch` and waits for its write; the write's outcome.
  [[nodiscard]] Status commit(const JournalBatch& batch);
  // Waits until every batch queued before the call is written (their
  // completions may still be running), so that a read sees them. Returns at
  // once on the writer thread, whose reads see every write done so far, and
  // within a DurableReads scope (durable_reads.hpp), whose reads need not.
  void wait_for_queued() const;

  // Writes so far and the batches they carried.
  struct Counts {
    std::uint64_t writes = 0;
    std::uint64_t batches = 0;
  };
  [[nodiscard]] Counts counts() const;

 private:
  struct Pending {
    std::shared_ptr<const JournalBatch> batch;
    Done done;
  };

  void run();
  // Takes the next group off the queue (at least one batch); empty once stopping with nothing queued.
  std::deque<Pending> next_group();
  // Writes `group` at once, or one at a time when that fails, and runs the completions.
  void write_group(const std::deque<Pending>& group);

  Write write_;
  std::size_t max_group_operations_;
  mutable std::mutex mutex_;
  std::condition_variable queued_;
  mutable std::condition_variable written_;
  std::deque<Pending> queue_;
  std::uint64_t queued_total_ = 0;   // batches ever queued
  std::uint64_t written_total_ = 0;  // batches ever written (or failed), in queue order
  bool stopping_ = false;
  Counts counts_;
  std::thread writer_;  // last: starts once the rest is set up
};

}  // namespace volador::storage
