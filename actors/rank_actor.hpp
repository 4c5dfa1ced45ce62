#pragma once
// The rank actor in a rank worker process: reports in to its trial (through
// the master's gateway) and runs the workloads the trial sends through the
// trial code. A workload blocks the thread running it: the worker process
// runs this one actor, so nothing else waits.
//
// Messages:
//   (workload_atom, Bytes WorkloadRequest) -> Bytes WorkloadResult
//   (shutdown_atom)                        the trial is done: quit normally
// It quits with an error when the hello is refused or the master goes away.

#include <memory>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "runtime/trial_api/trial_runner.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

struct RankState {
  std::shared_ptr<trial_api::TrialRunner> runner;
  std::uint64_t batches_trained = 0;
  static inline const char* name = "rank";
};

caf::behavior rank_actor(caf::stateful_actor<RankState>* self, std::shared_ptr<trial_api::TrialRunner> runner,
                         caf::actor master, wire::RankHello hello);

}  // namespace volador::actors
