#pragma once
// What reaches a trial (events) and what it asks its actor to do (effects):
// the vocabulary of TrialRun, which holds the trial's logic without actors.
// Agents are named by id and ranks by number; the actor maps them to handles.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "runtime/core/states.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// An agent's share of a run: its slots, in rank order.
struct AgentShare {
  std::string agent_id;
  std::vector<std::uint32_t> slot_indices;
  bool operator==(const AgentShare&) const = default;
};

// --- events ---

// The experiment: train to this total, then validate.
struct TrainTo {
  std::uint64_t batches = 0;
};
// The experiment: stop gracefully when idle (COMPLETED).
struct Close {};
// The experiment: checkpoint where it stands and free the slots.
struct Pause {};
// The experiment: resume a paused trial.
struct Activate {};
// The pool: checkpoint where it stands, give the slots back to make room for
// this experiment, and wait for slots again (pausing's path).
struct Preempt {
  std::uint64_t for_experiment = 0;
};
// The experiment: the search has nothing more for the trial until other
// trials catch up (pbt's rounds). Once it has done what its target asks
// (validated and checkpointed there), it gives its slots back and waits for
// its next target without them.
struct Park {};
// The experiment or a user: stop now (CANCELED).
struct Kill {};
// The pool: these slots are the trial's.
struct SlotsGranted {
  std::vector<AgentShare> agents;
};
// An agent refused or did not answer a launch.
struct LaunchFailed {
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::string message;
  // The agent starts no trial now (its work disk is short of space): not the
  // trial's fault, so not counted as a restart; the pool places it elsewhere.
  bool agent_refuses_trials = false;
};
// A rank worker of a launching run reports in.
struct RankHelloed {
  wire::RankHello hello;
};
// A rank of the current run reports in again: to a restarted master that
// found the run live, or after its own link to the master dropped.
struct RankRejoined {
  wire::RankRejoin rejoin;
};
// The pool handed the live run's agents back after a master restart.
struct RunAdopted {
  std::uint32_t run_id = 0;
  std::vector<AgentShare> agents;
};
// The pool could not hand them back.
struct AdoptFailed {
  std::uint32_t run_id = 0;
  std::string message;
};
// The reattach grace of a run passed.
struct ReattachTimedOut {
  std::uint32_t run_id = 0;
};
// A rank answered workload `workload` (see SendWorkload).
struct WorkloadAnswered {
  std::uint64_t workload = 0;
  std::uint32_t rank = 0;
  wire::WorkloadResult result;
};
// An agent: a rank worker ended.
struct WorkerExited {
  wire::WorkerExit exit;
};
// An agent of the current run is gone (its actor went down).
struct AgentLost {
  std::string agent_id;
};
// A command's rank reported a batch of metrics it printed: handed to the
// journal (JournalReports) and acknowledged once written, or at once when
// journaled before.
struct CommandReported {
  wire::MetricReports batch;
};
// The journal's writer thread wrote the batch JournalReports handed over
// (`error` empty), or could not (`error` says why).
struct ReportsJournaled {
  std::uint32_t run_id = 0;
  std::uint64_t seq = 0;
  std::string error;
};

using TrialEvent = std::variant<TrainTo, Close, Pause, Activate, Preempt, Park, Kill, SlotsGranted, LaunchFailed, RankHelloed,
                                RankRejoined, RunAdopted, AdoptFailed, ReattachTimedOut, WorkloadAnswered,
                                WorkerExited, AgentLost, CommandReported, ReportsJournaled>;

// --- effects ---

// Ask the pool for the trial's slots (answered by SlotsGranted).
struct RequestSlots {
  std::uint32_t slots = 0;
  bool operator==(const RequestSlots&) const = default;
};
// Give the trial's slots (granted or asked for) back to the pool.
struct ReleaseSlots {
  bool operator==(const ReleaseSlots&) const = default;
};
// Watch these agents of a new or adopted run (their loss is AgentLost).
struct WatchAgents {
  std::vector<std::string> agent_ids;
  bool operator==(const WatchAgents&) const = default;
};
// The run is over: stop watching its agents, have them kill what is left of
// its workers, and drop its ranks' handles. `ranks_exited`: every rank's
// agent reported its clean exit, so the agents hold nothing of the run and
// are not told (a message per trial saved).
struct ForgetRun {
  bool ranks_exited = false;
  bool operator==(const ForgetRun&) const = default;
};
// Ask an agent to start one rank worker (a refusal is LaunchFailed).
struct LaunchRank {
  std::string agent_id;
  wire::LaunchSpec spec;
  bool operator==(const LaunchRank&) const = default;
};
// Keep the rank's worker and its pending hello or rejoin: it was admitted.
struct AdmitRank {
  std::uint32_t rank = 0;
  bool operator==(const AdmitRank&) const = default;
};
// Refuse the hello or rejoin being handled.
struct RefuseRank {
  std::string message;
  bool operator==(const RefuseRank&) const = default;
};
// Answer every admitted rank's hello with the group: the run starts.
struct AnswerHellos {
  wire::RankGroup group;
  bool operator==(const AnswerHellos&) const = default;
};
// Answer every admitted rank's rejoin: accepted (the run goes on) or refused.
struct AnswerRejoins {
  bool accepted = true;
  std::string message;  // why not, when refused
  bool operator==(const AnswerRejoins&) const = default;
};
// Send a workload to ranks 0 .. ranks-1, each its share_of_rank() of
// `request` (trial_run.hpp); each answer is WorkloadAnswered.
struct SendWorkload {
  std::uint64_t workload = 0;  // its number, unique within the trial
  wire::WorkloadRequest request;
  std::uint32_t ranks = 0;
  bool operator==(const SendWorkload&) const = default;
};
// Send workload `workload` again, to `rank` alone: its link to the master
// dropped before the workload reached it. Its answer is WorkloadAnswered.
struct ResendWorkload {
  std::uint64_t workload = 0;
  wire::WorkloadRequest request;
  std::uint32_t rank = 0;
  bool operator==(const ResendWorkload&) const = default;
};
// Tell every rank to shut down; their clean exits (WorkerExited) complete the stop.
struct ShutdownRanks {
  bool operator==(const ShutdownRanks&) const = default;
};
// Ask the pool for a live run's agents back (RunAdopted or AdoptFailed).
struct AdoptRun {
  std::uint32_t run_id = 0;
  std::vector<std::string> agent_ids;
  std::uint32_t slots = 0;
  bool operator==(const AdoptRun&) const = default;
};
// Tell the run's agents that the trial took the run back (they report its workers to it).
struct ClaimWorkers {
  std::uint32_t run_id = 0;
  bool operator==(const ClaimWorkers&) const = default;
};
// Deliver ReattachTimedOut{run_id} to the trial after `after`.
struct StartReattachTimer {
  std::uint32_t run_id = 0;
  std::chrono::milliseconds after{0};
  bool operator==(const StartReattachTimer&) const = default;
};
// Tell the experiment: a validation of the searcher metric.
struct ReportValidation {
  std::uint64_t request_id = 0;
  double value = 0;
  std::uint64_t batches = 0;
  bool operator==(const ReportValidation&) const = default;
};
// Tell the experiment: a checkpoint was journaled (it collects old ones).
struct ReportCheckpoint {
  std::uint64_t request_id = 0;
  bool operator==(const ReportCheckpoint&) const = default;
};
// Queue `writes` on the journal's writer thread without waiting for it (its
// batches keep their order), then feed ReportsJournaled{run_id, seq}.
struct JournalReports {
  std::uint32_t run_id = 0;
  std::uint64_t seq = 0;
  std::shared_ptr<const storage::JournalBatch> writes;
  bool operator==(const JournalReports&) const = default;
};
// Answer the batch of reports being handled, else batch `seq`, which waited
// for its write: every batch of its run and rank up to number `seq` is journaled.
struct AcknowledgeReports {
  std::uint64_t seq = 0;
  bool operator==(const AcknowledgeReports&) const = default;
};
// Answer the batch of reports being handled once batch `seq` is written: it
// is a copy of a batch taken in and still waiting for its write (sent again
// after a drop of the rank's link), and its first copy's answer may be lost.
struct AcknowledgeWhenJournaled {
  std::uint64_t seq = 0;
  bool operator==(const AcknowledgeWhenJournaled&) const = default;
};
// Tell the experiment the trial ended in `state`; the actor stops.
struct ReportEnded {
  std::uint64_t request_id = 0;
  RunState state = RunState::completed;
  bool operator==(const ReportEnded&) const = default;
};

using TrialEffect = std::variant<RequestSlots, ReleaseSlots, WatchAgents, ForgetRun, LaunchRank, AdmitRank, RefuseRank,
                                 AnswerHellos, AnswerRejoins, SendWorkload, ResendWorkload, ShutdownRanks, AdoptRun,
                                 ClaimWorkers, StartReattachTimer, ReportValidation, ReportCheckpoint,
                                 JournalReports, AcknowledgeReports, AcknowledgeWhenJournaled, ReportEnded>;
using TrialEffects = std::vector<TrialEffect>;

}  // namespace volador::master
