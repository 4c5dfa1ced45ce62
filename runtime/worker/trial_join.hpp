#pragma once
// A rank worker joins its trial: with several ranks it opens its data-plane
// listener, reports in to the trial on the master (RankSession), and builds
// the communicator from the group the trial answers with. Shared by the
// native worker and the Python module.

#include <memory>

#include "actors/rank_session.hpp"
#include "runtime/trial_api/data_parallel.hpp"
#include "runtime/worker/worker_launch.hpp"

namespace volador::worker {

struct JoinedTrial {
  std::unique_ptr<actors::RankSession> session;
  std::shared_ptr<trial_api::DataParallel> group;  // a group of one for a 1-rank trial
};

// Gradients travel in buckets of this many bytes unless VOLADOR_BUCKET_BYTES says otherwise.
inline constexpr std::size_t kDefaultBucketBytes = std::size_t{4} << 20;

// Reports in and sets up the data plane. Errors say which step failed
// (listener, master, data-plane connection) and why.
Result<JoinedTrial> join_trial(const WorkerLaunch& launch);

// The same through `link` (a warm worker's, kept from trial to trial), which
// must outlive the trial. A 1-rank launch with a first workload returns
// before the trial answered the hello (RankSession::join's `started`).
Result<JoinedTrial> join_trial(actors::MasterLink& link, const WorkerLaunch& launch);

}  // namespace volador::worker
