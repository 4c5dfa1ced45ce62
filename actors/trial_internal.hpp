#pragma once
// The trial actor's parts, shared among its files; not for use outside it.
//   trial_lifecycle.cpp  journal, ending, restarting, pausing, worker events
//   trial_launch.cpp     starting a run: launching ranks, their rendezvous
//   trial_workloads.cpp  driving train/validate/checkpoint workloads
//   trial_command.cpp    command entrypoints: one `run` per run, reports
//   trial_reattach.cpp   taking a live run back after a master restart
// The behavior itself is in trial_actor.cpp.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <caf/response_promise.hpp>

#include "actors/trial_actor.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors::trial_internal {

using Self = caf::stateful_actor<TrialState>*;
using Phase = TrialState::Phase;

// --- lifecycle ---
const storage::TrialRecord& record(Self self);
// Logs a failed journal write (the trial goes on; the journal is the master's).
void journal_status(Self self, const Status& status, const char* what);
// A line in the trial's log from the system itself (launches, failures).
void system_log(Self self, const std::string& text);
void save_record(Self self);
// Ends the current run: kills what is left of its workers and frees the slots.
void forget_run(Self self);
// Ends the trial in `state` (journaled, the experiment told) and stops the actor.
void end_trial(Self self, RunState state, const std::string& why);
void request_slots(Self self);
// Whether `validation` beats every earlier one of the trial on the searcher
// metric (the first one always does); remembers it if so.
bool is_new_best(TrialState& st, const MetricMap& validation);
// Picks the checkpoint to resume from and rewinds progress to it; false
// (the trial ended in ERROR) when the journal cannot say.
bool rewind_to_resume_point(Self self);
// Starts a new run after a failure, from the latest good checkpoint; ERROR
// once a counted restart would pass max_restarts.
void restart(Self self, const std::string& why, bool counts_as_restart);
// Journals the run as live once a workload was answered (every rank has its
// group by then): from now on a restarted master looks for the run before
// restarting it. Saves the record the first time.
void mark_run_live(Self self);
void on_worker_exit(Self self, const wire::Bytes& bytes);
void on_logs(Self self, const wire::Bytes& bytes);
void on_pause(Self self);
void on_activate(Self self);

// Who a rank reporting in (a hello or a rejoin) says it is.
struct RankIdentity {
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::string token;
};
// Whether the trial expects `who` to report in now, during `phase`: the
// trial is in it, the run and token are the current run's, and the rank is
// one of the run's that has not reported yet.
bool expects_report(const TrialState& st, Phase phase, const RankIdentity& who);
// Records a rank reporting in during `phase`: its worker, and `promise` to
// answer once all have. False, with `promise` refused, when it is not
// expected (see expects_report).
bool admit_rank(Self self, Phase phase, const RankIdentity& who, caf::actor worker, caf::response_promise& promise);

// --- launch ---
// Starts a run on the granted slots: ranks numbered agent by agent.
void launch(Self self, const std::vector<GrantedAgent>& grant);
// A rank's hello: answered with the group once every rank has reported in.
caf::response_promise accept_rank(Self self, const wire::Bytes& bytes, caf::actor worker);

// --- workloads ---
void journal_metrics_at(Self self, storage::MetricKind kind, std::uint64_t batches, const MetricMap& metrics);
// "a, b, c", or "none".
std::string metric_names(const MetricMap& metrics);
// Applies a finished train/validate workload; false when the trial failed.
bool complete_workload(Self self, const training::Workload& workload, const wire::WorkloadResult& result);
// Sends `request` to the first `ranks` ranks; `done` gets the combined result
// once all have answered, or a `run`'s first error at once (its peers may
// wait on the failed rank for long: torch.distributed's timeouts are long).
void send_workload(Self self, const wire::WorkloadRequest& request, std::size_t ranks,
                   std::function<void(wire::WorkloadResult)> done);
// Tells every rank to shut down; their clean exits complete the stop.
void stop_ranks(Self self);
// Sends the next workload, if the run is idle and has one.
void drive(Self self);

// --- command ---
void drive_command(Self self);
// One report of rank 0's command, journaled as it comes.
void on_report(Self self, const wire::Bytes& bytes);

// --- reattach ---
// What a recovered trial does first: reattach its live run, or (a command's
// run, which cannot be reattached) give its workers up.
void recover_run(Self self);
caf::response_promise accept_rejoin(Self self, const wire::Bytes& bytes, caf::actor worker);
// The run did not come back within kReattachGrace: restart it, if still waiting.
void on_reattach_timeout(Self self, std::uint32_t run_id);

}  // namespace volador::actors::trial_internal
