#pragma once
// The native worker's loop: take workloads from the rank session, run them
// through the TrialRunner, answer with averaged metrics, log one line each.

#include "actors/rank_session.hpp"
#include "runtime/trial_api/trial_runner.hpp"

namespace volador::worker {

// Runs one workload; trial-code failures become the result's error_message.
wire::WorkloadResult run_workload(trial_api::TrialRunner& runner, const wire::WorkloadRequest& request);

// Serves workloads until the trial is done (success) or the master is lost (error).
Status serve_workloads(actors::RankSession& session, trial_api::TrialRunner& runner);

}  // namespace volador::worker
