#pragma once
// The rank's side of a chain (WorkloadRequest.then): a request the trial
// sent is run one workload after another, each while the one before it
// succeeded, and answered once, with the chain's results in the answer's
// `then`. Pure: RankSession keeps one and hands its workloads to the thread
// that runs the trial code.

#include <deque>
#include <optional>
#include <vector>

#include "runtime/wire/messages.hpp"

namespace volador::actors {

class WorkloadChain {
 public:
  // Takes `request` as the trial sent it: its own workload, without the
  // chain, is the one to run first. A request taken before is dropped.
  wire::WorkloadRequest start(wire::WorkloadRequest request);

  // The chain's next workload once the previous one's result was kept
  // without ending the request; nullopt when none is due.
  std::optional<wire::WorkloadRequest> next();

  // Keeps the result of the workload returned last. Once it failed or was
  // the chain's last: the request as received with its answer, the first
  // workload's result carrying the others' in `then`.
  std::optional<wire::FinishedWorkload> finish(wire::WorkloadResult result);

 private:
  std::optional<wire::WorkloadRequest> received_;  // until answered
  std::deque<wire::WorkloadRequest> left_;         // its chain's workloads not run yet
  std::vector<wire::WorkloadResult> results_;      // of those run, in order
  bool running_ = false;                           // a workload handed out awaits its result
};

}  // namespace volador::actors
