#pragma once
// The rank's side of the control plane, for the thread that runs the trial
// code (a native worker's main, or Python through the native module): report
// in to the trial, then take workloads one at a time and answer each.
// Internally a CAF blocking actor on the calling thread; the trial actor on
// the master sends (workload_atom, Bytes WorkloadRequest) requests and a final
// (shutdown_atom). Not thread-safe: use it from one thread.

#include <chrono>
#include <memory>
#include <optional>

#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

class RankSession {
 public:
  // Starts an actor system, connects to the master and presents `hello`;
  // returns once every rank of the trial has reported in. Errors: unavailable
  // (master unreachable), invalid_argument (refused: stale run or bad token),
  // each with the master's reason.
  static Result<std::unique_ptr<RankSession>> connect(const net::Endpoint& master, const wire::RankHello& hello);
  ~RankSession();

  // The trial's ranks as the trial sent them: what the data plane is built from.
  [[nodiscard]] const wire::RankGroup& group() const;

  // Blocks until the trial sends the next workload. nullopt when the trial is
  // done with this rank; unavailable when the master went away. The previous
  // workload must have been answered with complete().
  Result<std::optional<wire::WorkloadRequest>> next_workload();

  // Answers the workload last returned by next_workload().
  void complete(const wire::WorkloadResult& result);

  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;

 private:
  struct Impl;
  explicit RankSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace volador::actors
