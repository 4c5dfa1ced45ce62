#pragma once
// One Python rank worker's link to its trial, in plain C++ (module.cpp binds
// it to Python): reads the launch the agent wrote, joins the trial exactly as
// volador-worker does (RankSession hello, then the data plane), hands out
// workloads and takes their results, and runs collectives over the trial's
// DataParallel group. Not thread-safe: one thread at a time (the bindings
// call it with the GIL released, always from the thread that holds the
// session). Every error is a value whose message says what failed.

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "runtime/collective/communicator.hpp"
#include "runtime/worker/trial_join.hpp"
#include "runtime/worker/worker_launch.hpp"

namespace volador::python {

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
  // nothing. Every rank must make the same calls with the same sizes.
  Status allreduce(std::span<float> data, collective::ReduceOp op);
  Status broadcast(std::span<std::byte> data, int root);
  Status barrier();

  // Leaves the trial: closes the data plane and the control connection.
  void close();

 private:
  NativeSession(worker::WorkerLaunch launch, worker::JoinedTrial joined);
  Status check_open(const char* what) const;

  worker::WorkerLaunch launch_;
  std::optional<worker::JoinedTrial> joined_;
};

}  // namespace volador::python
