#pragma once
// Internal to volador_checkpoints: fsyncs many open files and folders at
// once. Each fsync waits for its own writes and for the disk to flush its
// cache; one after another, a checkpoint of a few files waits that long for
// each in turn, while issued together they share the disk's flushes and take
// about as long as the slowest. A fixed set of threads, started once and
// shared by every caller (thread-safe); the calling thread takes part.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::checkpoints {

class FsyncPool {
 public:
  // An open file or folder to make durable, and the path its errors name.
  struct Target {
    int fd = -1;
    const std::filesystem::path* path = nullptr;
  };

  // `helpers` threads besides the callers'.
  explicit FsyncPool(std::size_t helpers);
  // Lets running fsyncs finish, then stops the threads.
  ~FsyncPool();
  FsyncPool(const FsyncPool&) = delete;
  FsyncPool& operator=(const FsyncPool&) = delete;

  // The process's pool (4 helpers), started at its first use.
  static FsyncPool& shared();

  // fsyncs every target, returning once all are done: ok, or the first
  // failure in `targets`' order ("cannot fsync PATH: ...").
  [[nodiscard]] Status fsync_all(std::span<const Target> targets);

 private:
  struct Batch;

  void help();
  static void work_on(Batch& batch);

  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<std::shared_ptr<Batch>> queue_;  // one entry per helper asked to join a batch
  bool stopping_ = false;
  std::vector<std::thread> helpers_;  // last: started once the rest is set up
};

}  // namespace volador::checkpoints
