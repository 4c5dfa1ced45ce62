#pragma once
// A thread kept for the output loops of children started one after another
// (a warm worker's commands, one per trial): ChildProcess runs each child's
// loop on it in turn instead of starting and joining a thread per child.
// Thread-safe.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace volador::process {

class ReaderThread {
 public:
  ReaderThread();
  // Waits for the loop it runs, if any, then ends the thread.
  ~ReaderThread();

  // Starts `loop` on the thread and returns its run's number, or nullopt
  // (and `loop` is dropped) while an earlier loop still runs.
  std::optional<std::uint64_t> try_run(std::function<void()> loop);
  // Blocks until the loop of run `run` (try_run's number) has returned.
  void wait(std::uint64_t run);

  ReaderThread(const ReaderThread&) = delete;
  ReaderThread& operator=(const ReaderThread&) = delete;

 private:
  void serve();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> loop_;
  std::uint64_t started_ = 0;   // runs handed over
  std::uint64_t finished_ = 0;  // runs whose loop returned
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest is set up
};

}  // namespace volador::process
