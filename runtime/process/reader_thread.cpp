#include "runtime/process/reader_thread.hpp"

namespace volador::process {

ReaderThread::ReaderThread() : thread_([this] { serve(); }) {}

ReaderThread::~ReaderThread() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

std::optional<std::uint64_t> ReaderThread::try_run(std::function<void()> loop) {
  std::uint64_t run = 0;
  {
    std::lock_guard lock(mutex_);
    if (started_ != finished_ || stopping_) return std::nullopt;
    loop_ = std::move(loop);
    run = ++started_;
  }
  changed_.notify_all();
  return run;
}

void ReaderThread::wait(std::uint64_t run) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return finished_ >= run; });
}

void ReaderThread::serve() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return started_ != finished_ || stopping_; });
    if (started_ == finished_) return;  // stopping, with no loop left to run
    auto loop = std::move(loop_);
    lock.unlock();
    loop();
    loop = nullptr;  // what the loop holds goes before its run is counted finished
    lock.lock();
    ++finished_;
    changed_.notify_all();
  }
}

}  // namespace volador::process
