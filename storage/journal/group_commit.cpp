#include "storage/journal/group_commit.hpp"

#include <future>
#include <utility>
#include <vector>

#include "storage/journal/durable_reads.hpp"
#include "storage/journal/journal.hpp"

namespace volador::storage {

GroupCommitter::GroupCommitter(Write write, std::size_t max_group_operations)
    : write_(std::move(write)), max_group_operations_(max_group_operations), writer_([this] { run(); }) {}

GroupCommitter::~GroupCommitter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_one();
  writer_.join();
}

void GroupCommitter::submit(std::shared_ptr<const JournalBatch> batch, Done done) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(batch), std::move(done)});
    ++queued_total_;
  }
  queued_.notify_one();
}

Status GroupCommitter::commit(const JournalBatch& batch) {
  std::promise<Status> outcome;
  auto written = outcome.get_future();
  // The caller waits for the write, so the queue may point at its batch without owning it.
  submit(std::shared_ptr<const JournalBatch>(std::shared_ptr<void>(), &batch),
         [&outcome](const Status& status) { outcome.set_value(status); });
  return written.get();
}

void GroupCommitter::wait_for_queued() const {
  if (std::this_thread::get_id() == writer_.get_id() || DurableReads::active()) return;
  std::unique_lock lock(mutex_);
  const std::uint64_t target = queued_total_;
  written_.wait(lock, [&] { return written_total_ >= target; });
}

GroupCommitter::Counts GroupCommitter::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

std::deque<GroupCommitter::Pending> GroupCommitter::next_group() {
  std::unique_lock lock(mutex_);
  queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  std::deque<Pending> group;
  std::size_t operations = 0;
  while (!queue_.empty()) {
    const std::size_t size = queue_.front().batch->operations().size();
    if (!group.empty() && operations + size > max_group_operations_) break;
    operations += size;
    group.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  return group;
}

void GroupCommitter::run() {
  for (;;) {
    auto group = next_group();
    if (group.empty()) return;  // stopping, and everything queued is written
    write_group(group);
  }
}

void GroupCommitter::write_group(const std::deque<Pending>& group) {
  std::vector<const JournalBatch*> batches;
  for (const auto& pending : group) batches.push_back(pending.batch.get());
  std::vector<Status> outcomes(group.size(), write_(batches));
  std::uint64_t writes = 1;
  if (!outcomes.front() && group.size() > 1) {
    // Nothing of the group was written: find the batches that fail by themselves.
    for (std::size_t i = 0; i < group.size(); ++i, ++writes) {
      const JournalBatch* alone[] = {batches[i]};
      outcomes[i] = write_(alone);
    }
  }
  {
    std::lock_guard lock(mutex_);
    counts_.writes += writes;
    counts_.batches += group.size();
    written_total_ += group.size();
  }
  written_.notify_all();
  for (std::size_t i = 0; i < group.size(); ++i) group[i].done(outcomes[i]);
}

}  // namespace volador::storage
