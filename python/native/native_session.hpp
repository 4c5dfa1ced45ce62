#pragma once
// One Python rank worker's link to its trial, in plain C++ (module.cpp binds
// it to Python): reads the launch the agent wrote, joins the trial exactly as
// volador-worker does (RankSession hello, then the data plane), hands out
// workloads and takes their results, and runs collectives over the trial's
// DataParallel group. The collectives (blocking or not) run on one
// background thread per session, one at a time in the order they were
// submitted, since the communicator itself is not thread-safe; submitting is
// thread-safe. The other calls are not: one thread at a time (the bindings
// call them with the GIL released). Every error is a value whose message
// says what failed.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "runtime/collective/communicator.hpp"
#include "runtime/worker/trial_join.hpp"
#include "runtime/worker/worker_launch.hpp"

namespace volador::python {

// The outcome of one submitted collective: wait() blocks until it ran.
class CollectiveTicket {
 public:
  Status wait();
  [[nodiscard]] bool done() const;
  void finish(Status status);

 private:
  mutable std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  Status status_;
};

// One background thread that runs submitted tasks one at a time, in FIFO
// order. shutdown() (and the destructor) fails the tasks not yet started,
// waits for the running one and joins the thread.
class CollectiveQueue {
 public:
  CollectiveQueue() = default;
  CollectiveQueue(const CollectiveQueue&) = delete;
  CollectiveQueue& operator=(const CollectiveQueue&) = delete;
  ~CollectiveQueue() { shutdown(); }

  std::shared_ptr<CollectiveTicket> submit(std::function<Status()> task);
  void shutdown();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<std::function<Status()>, std::shared_ptr<CollectiveTicket>>> tasks_;
  bool stopping_ = false;
  std::thread thread_;
};

class NativeSession {
 public:
  // Reads the launch (VOLADOR_MASTER, VOLADOR_TOKEN, VOLADOR_TRIAL_FILE) and
  // joins the trial; returns once every rank has reported in and the data
  // plane is up.
  static Result<NativeSession> join();

  [[nodiscard]] const worker::WorkerLaunch& launch() const { return launch_; }
  [[nodiscard]] std::uint32_t rank() const { return launch_.hello.rank; }
  [[nodiscard]] std::uint32_t size() const { return launch_.world_size; }

  // The next workload; nullopt once the trial is done with this rank.
  // unavailable when the master went away or the session was closed.
  Result<std::optional<wire::WorkloadRequest>> next_workload();
  // Answers the workload last returned by next_workload().
  Status complete(const wire::WorkloadResult& result);

  // Collectives over all ranks of the trial; with one rank they change
  // nothing. Every rank must make the same calls with the same sizes, in the
  // same order (asynchronous ones count in the order they were submitted).
  Status allreduce(std::span<float> data, collective::ReduceOp op);
  // Queues the allreduce and returns at once; `data` must stay valid and
  // untouched until the ticket is done. Tickets finish in submission order.
  std::shared_ptr<CollectiveTicket> allreduce_async(std::span<float> data, collective::ReduceOp op);
  Status broadcast(std::span<std::byte> data, int root);
  Status barrier();

  // Forms the trial's GPU collectives (DeviceGroup::form: a collective call
  // that every rank makes at the same point); `wanted`: this rank's
  // gradients are in GPU memory. ok, or why the trial keeps to host memory.
  Status use_device_memory(bool wanted);
  // Queues an in-place allreduce of `count` float32 at GPU address `pointer`
  // that starts on the GPU once `ready_event` (a cudaEvent_t, 0: none) has
  // completed; the ticket is done once the reduction is. Needs
  // use_device_memory(true) to have succeeded.
  std::shared_ptr<CollectiveTicket> allreduce_device_async(std::uintptr_t pointer, std::size_t count,
                                                           collective::ReduceOp op, std::uintptr_t ready_event);

  // Leaves the trial: closes the data plane and the control connection.
  void close();

 private:
  NativeSession(worker::WorkerLaunch launch, worker::JoinedTrial joined);
  Status check_open(const char* what) const;
  // Queues `task` on the trial's group; a group of one runs nothing (every collective is the identity).
  std::shared_ptr<CollectiveTicket> submit(const char* what, std::function<Status(trial_api::DataParallel&)> task);

  worker::WorkerLaunch launch_;
  std::optional<worker::JoinedTrial> joined_;
  // Declared last: destroyed (its thread stopped) before the group it uses.
  std::unique_ptr<CollectiveQueue> queue_ = std::make_unique<CollectiveQueue>();
};

}  // namespace volador::python
