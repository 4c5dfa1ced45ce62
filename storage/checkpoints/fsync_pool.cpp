#include "storage/checkpoints/fsync_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>

#include "storage/checkpoints/posix_file.hpp"

namespace volador::checkpoints {

// One fsync_all call: its targets, taken one at a time by whoever works on it.
struct FsyncPool::Batch {
  std::span<const Target> targets;
  std::vector<std::optional<Error>> failures;  // index = target
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::condition_variable finished;
  std::size_t done = 0;  // targets fsynced or failed (under mutex)
};

FsyncPool::FsyncPool(std::size_t helpers) {
  for (std::size_t i = 0; i < helpers; ++i) helpers_.emplace_back([this] { help(); });
}

FsyncPool::~FsyncPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  for (auto& helper : helpers_) helper.join();
}

FsyncPool& FsyncPool::shared() {
  static FsyncPool pool(4);
  return pool;
}

Status FsyncPool::fsync_all(std::span<const Target> targets) {
  if (targets.empty()) return {};
  auto batch = std::make_shared<Batch>();
  batch->targets = targets;
  batch->failures.resize(targets.size());
  const std::size_t joining = std::min(targets.size() - 1, helpers_.size());
  if (joining > 0) {
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < joining; ++i) queue_.push_back(batch);
    }
    queued_.notify_all();
  }
  work_on(*batch);
  std::unique_lock lock(batch->mutex);
  batch->finished.wait(lock, [&] { return batch->done == targets.size(); });
  for (auto& failure : batch->failures)
    if (failure) return fail(std::move(*failure));
  return {};
}

void FsyncPool::help() {
  for (;;) {
    std::shared_ptr<Batch> batch;
    {
      std::unique_lock lock(mutex_);
      queued_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left to join
      batch = std::move(queue_.front());
      queue_.pop_front();
    }
    work_on(*batch);
  }
}

// Takes the batch's targets until none is left; the last to finish wakes its caller.
void FsyncPool::work_on(Batch& batch) {
  for (std::size_t i = batch.next++; i < batch.targets.size(); i = batch.next++) {
    const Target& target = batch.targets[i];
    std::optional<Error> failure;
    if (::fsync(target.fd) != 0) failure = io_error("cannot fsync", *target.path, errno);
    std::lock_guard lock(batch.mutex);
    batch.failures[i] = std::move(failure);
    if (++batch.done == batch.targets.size()) batch.finished.notify_all();
  }
}

}  // namespace volador::checkpoints
