#pragma once
// One trial's life on the master, without actors: events in (trial_events.hpp),
// effects out, journal writes and checkpoint folders done here. The trial
// actor feeds it the messages it receives and carries out the effects.
//
// A trial gets all its slots at once, has the agents launch one rank worker
// per slot (resuming from the latest good checkpoint), answers the ranks'
// hellos with their group once all reported (the data-plane rendezvous),
// drives the workload sequence (train scheduling_unit batches -> metrics,
// validate and checkpoint on schedule and at the searcher's target) on every
// rank, sends every validation to the searcher (the one at the target once
// the checkpoint there is committed, so a search that copies the trial
// finds it: pbt), journals rank 0's metrics (already averaged over ranks), checkpoints
// (rank 0 writes them) and logs, restarts a failed run up to max_restarts,
// pauses and resumes.
//
// A command entrypoint runs to completion by itself: each run sends one
// `run` workload to every rank (a 1-rank trial's launch carries it too: the
// rank starts it at once and answers the same request sent after its hello). Rank 0's reports come in numbered batches,
// each journaled in one write and then acknowledged, a batch sent again only
// acknowledged (validation metrics at the script's step, or 1, 2, ... without
// one; losses as training metrics); each batch's latest report holding the
// searcher metric before the target goes to the searcher (goals, early
// stopping). The rank keeps unacknowledged batches across a drop of its link
// to the master and sends them again, in order. Its answer to the `run`
// carries the reports it has not sent yet, as the batch after its last one:
// the trial takes it in only after every batch before it, and journals it
// with the run's end in one write; an answer that comes back with a rejoin
// after a batch the trial lacks is asked for again, which makes the rank
// send its unacknowledged batches first. So no report is lost or journaled
// twice. (A rank older than the field answers once every batch was
// acknowledged, with none in its answer.) When the command exits
// cleanly its latest metrics (the final result winning) are journaled at the
// searcher's target and validated there, and its ranks stop and its slots go
// back at once, before the searcher decides: the trial then waits without
// slots, a close completes it and a further target gets the same result. Each
// `run` names a staging folder in checkpoint storage; rank 0 captures the
// command's checkpoint folder into it (at volador.reporting.checkpoint() and
// at a clean exit) and reports each capture among its metrics, in order: the
// trial commits it (manifest, checksums) and journals it in that batch's
// write, at the batch count of the latest report before it (or one past the
// trial's previous checkpoint), with the metrics reported so far. A failed
// run restarts the command (within max_restarts), a pause stops it and
// activation runs it again: from the trial's latest checkpoint, which the
// command finds in VOLADOR_LATEST_CHECKPOINT, with the reports after it
// removed, or from scratch without one.
//
// A trial gives its slots back as it tells its ranks to stop, not once they
// exited: its agents start the next rank on a slot once this one lets go
// of it (a warm worker takes the next trial at once), so a trial's end and
// the next one's launch overlap.
//
// A trial the experiment parks (its search waits for other trials: pbt)
// finishes what its target asks, then stops its ranks and gives its slots
// back; its next target takes it from its checkpoint there, with new slots.
// A trial given a target it already stands at (validated and checkpointed
// there) asks for no slots.
//
// After a master restart, a trial whose run was live (its record names the
// run's agents, from the run's first answered workload on: by then every
// rank holds its group) first tries to take that run back: it claims the
// run's workers from the pool and waits for every rank to rejoin. Each rank
// resends its last finished workloads with their answers, which the journal
// may lack; the trial applies those it lacks, and the run goes on where it
// stands. If the run does not come back whole within the reattach grace, the
// trial restarts from its checkpoint (not counted as a restart). Command trials
// always restart: their reports during the outage are lost.
//
// A rank whose own link to the master dropped while the master ran on (a
// loaded host, a stalled worker) rejoins the running run the same way: it is
// given the workload in flight again, or its answer to it counts. One whose
// link dropped while it waited for its group says hello again: the repeat
// replaces its first hello, or is answered with the group if the run started.
//
// Every event that belongs to another run than the current one (or comes
// while the run is not in the phase that expects it) is ignored: answers are
// matched by workload number, which no other run reuses, hellos and rejoins
// by run number and token, so a superseded run never reports.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "master/timings.hpp"
#include "master/trial_events.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/tls/identity.hpp"
#include "runtime/tls/rank_name.hpp"
#include "runtime/training/workload_plan.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// One trial: its record and what its experiment gives each of its trials.
struct TrialSpec {
  storage::TrialRecord record;  // as journaled (new, or read back after a master restart)
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;  // the packed model definition
  std::shared_ptr<checkpoints::CheckpointStore> store;
  std::string resource_pool;  // its experiment's (master::trial_pool); empty: the cluster's default
};

// What a trial is made of, beyond its events.
struct TrialSetup {
  TrialSpec spec;
  std::shared_ptr<storage::Journal> journal;
  std::string master_host;  // as rank workers reach the master
  std::uint16_t master_port = 0;
  Timings timings;
  Clock clock = system_now_ms;
  // Random run tokens and group secrets; tests pass a fixed one.
  std::function<std::string()> make_secret;
  // The identity for one rank launch on an agent, signed by the cluster CA
  // (RankIdentities::for_launch): what the rank's worker presents to the
  // master instead of its agent's identity.
  std::function<Result<tls::Identity>(const std::string& agent_id, const tls::RankName&)> issue_rank_identity;
};

class TrialRun {
 public:
  enum class Phase { idle, waiting_for_slots, launching, reattaching, running, stopping, paused, ended };

  explicit TrialRun(TrialSetup setup);

  // What the trial does first: take a live run back after a master restart
  // (or, for a command, give it up); nothing for a new trial.
  [[nodiscard]] TrialEffects start();
  [[nodiscard]] TrialEffects on(TrialEvent event);

  [[nodiscard]] Phase phase() const { return phase_; }
  [[nodiscard]] const storage::TrialRecord& record() const { return setup_.spec.record; }
  [[nodiscard]] const training::Progress& progress() const { return progress_; }
  [[nodiscard]] const TrialSpec& spec() const { return setup_.spec; }

 private:
  // One rank of the current run.
  struct Rank {
    bool reported = false;                       // its hello or rejoin is held, not yet answered
    bool stopped = false;                        // exited cleanly after shutdown
    bool runs_chains = false;                    // its hello or rejoin said it runs a workload's chain
    wire::RankAddress address;                   // its data-plane listener
    std::vector<wire::FinishedWorkload> finished;  // a rejoining rank's last workloads and answers, oldest first
  };
  // The workload the ranks are working on, with its chain (WorkloadRequest.then).
  struct InFlight {
    std::uint64_t number = 0;
    wire::WorkloadRequest request;  // as rank 0 has it: each rank has share_of_rank()
    std::vector<std::optional<wire::WorkloadResult>> results;  // index = rank; nullopt until it answered
    std::optional<checkpoints::PendingCheckpoint> checkpoint;  // the folder of its (or its chain's) checkpoint
    bool scheduled = false;  // a checkpoint the plan asked for (not one a pause or close took)
  };
  // A request to the ranks as the plan makes it, and its chain's checkpoint folder.
  struct PlannedWorkload {
    wire::WorkloadRequest request;
    std::optional<checkpoints::PendingCheckpoint> checkpoint;
  };
  // What the current run's command reported so far (rank 0's reports only).
  struct CommandRun {
    std::uint64_t reports = 0;       // reports without a step, numbered on from the resume point: 1, 2, ...
    std::uint64_t position = 0;      // batches of the latest report (at least the resume point's)
    MetricMap reported;              // the latest value of every validation metric
    std::uint64_t forwarded_at = 0;  // batches of the last report sent to the searcher
    std::uint64_t taken_seq = 0;      // the last batch of reports taken in and handed to the journal (MetricReports.seq)
    std::uint64_t journaled_seq = 0;  // the last batch of reports journaled
    bool finished = false;           // the command exited successfully
    std::optional<checkpoints::PendingCheckpoint> staging;  // where rank 0 stages the run's checkpoints
    std::optional<wire::WorkloadRequest> request;  // the run's `run`, sent to its ranks (or in its launch)
  };
  // What waits for the journal write of a batch of the command's reports.
  struct UnjournaledReports {
    std::optional<ReportValidation> validation;  // the batch's latest, for the searcher
    std::vector<std::string> checkpoints;        // committed by the batch, journaled with it
  };
  // A batch of the command's reports taken in: its journal writes and what waits for them.
  struct TakenReports {
    storage::JournalBatch writes;
    UnjournaledReports waiting;
  };
  // A batch of the command's reports being taken in: the run as the batch
  // leaves it, and what it takes.
  struct CommandReportBatch {
    CommandRun run;
    TakenReports taken;
    std::int64_t now_ms = 0;
    std::int64_t newest_checkpoint_at = -1;  // as the batch leaves it
  };

  // trial_run.cpp: the events, journal and ending
  void handle(const TrainTo& event);
  void handle(const Close& event);
  void handle(const Pause& event);
  void handle(const Activate& event);
  void handle(const Preempt& event);  // trial_run_preempt.cpp
  void finish_preemption();
  void handle(const Park& event);     // trial_run_park.cpp
  void finish_parking();
  // Whether the target's work is done at the searcher's max_length: nothing is left to train.
  [[nodiscard]] bool done_at_max_length() const;
  // Whether the trial has workloads left before its target (a command: any target).
  [[nodiscard]] bool has_work() const;
  void handle(const Kill& event);
  void handle(const WorkerExited& event);
  void handle(const AgentLost& event);
  // A completion for a write queued without waiting: logs a failure.
  [[nodiscard]] std::function<void(const Status&)> log_if_failed(const char* what) const;
  // Journals a line for the trial's log with the event's other writes
  // (flush_journal), numbered after the lines queued before them.
  void system_log(const std::string& text);
  // Journals the record as it stands when the event's writes are flushed.
  void save_record();
  // Queues what the event journaled (save_record, metrics, checkpoints, log lines) as
  // one batch, without waiting for its write, before the event's effects go
  // out: the journal writes batches in the order queued, so whatever others
  // journal in answer to the effects is written after it, and a read of the
  // journal waits for it.
  void flush_journal();
  void forget_run();
  void end_trial(RunState state, const std::string& why);
  // end_trial for a trial whose run is forgotten already.
  void record_end(RunState state, const std::string& why);
  void request_slots();
  bool is_new_best(const MetricMap& validation);
  // Sends the searcher metric of the last validation, if it has one.
  void report_last_validation();
  bool rewind_to_resume_point();
  // A lost or failed run: the trial goes on from its resume point with a new
  // run, or completes there if it was closed meanwhile (a close that came
  // while the run launched or was being taken back after a master restart).
  void restart(const std::string& why, bool counts_as_restart);
  void on_rank_stopped();
  [[nodiscard]] bool run_is_live() const;
  [[nodiscard]] bool is_current_rank(std::uint32_t run_id, std::uint32_t rank, const std::string& token) const;
  [[nodiscard]] bool expects_report(Phase phase, std::uint32_t run_id, std::uint32_t rank, const std::string& token) const;
  bool admit_rank(Phase phase, std::uint32_t run_id, std::uint32_t rank, const std::string& token);

  // trial_run_launch.cpp: starting a run and its rendezvous
  void handle(const SlotsGranted& event);
  void handle(const LaunchFailed& event);
  void handle(const RankHelloed& event);
  [[nodiscard]] Result<wire::LaunchSpec> launch_spec(const AgentShare& share, std::uint32_t rank, std::uint32_t local_rank,
                                                     std::uint32_t node_index, std::uint32_t node_count) const;
  void start_when_all_reported();
  [[nodiscard]] bool starts_with_launch() const;
  // The workload a 1-rank run's launch carries (starts_with_launch); nullopt
  // when the trial ended (a command whose staging folder cannot be made) or
  // the plan starts with no train or validation.
  std::optional<wire::WorkloadRequest> launched_workload();

  // trial_run_workloads.cpp: train, validate and checkpoint workloads
  void handle(const WorkloadAnswered& event);
  void drive();
  void send_workload(const wire::WorkloadRequest& request, std::uint32_t ranks);
  void send_planned(const training::Workload& workload);
  // `workload` with the plan's workloads that follow it as its chain (when
  // `chains`), and the folder of the chain's checkpoint.
  [[nodiscard]] PlannedWorkload plan(const training::Workload& workload, bool chains);
  // Whether `request` is `workload` with the chain the plan makes now.
  [[nodiscard]] bool plans_the_same(const wire::WorkloadRequest& request, const training::Workload& workload) const;
  // Removes the folder of the launch's planned workload, if the run did not take it.
  void drop_launched_plan();
  void finish_workload(InFlight done);
  [[nodiscard]] Result<checkpoints::PendingCheckpoint> begin_checkpoint();
  void run_checkpoint(bool scheduled);
  void abort_checkpoint(const checkpoints::PendingCheckpoint& pending);
  // Commits rank 0's checkpoint and journals it. False when it failed, which
  // restarted or ended the trial.
  bool commit_checkpoint(const checkpoints::PendingCheckpoint& pending, bool scheduled,
                         const wire::WorkloadResult& result);
  void register_checkpoint(const std::string& uuid, std::uint64_t total_bytes, bool scheduled);
  bool complete_workload(const training::Workload& workload, const wire::WorkloadResult& result);
  void journal_metrics_at(storage::MetricKind kind, std::uint64_t batches, const MetricMap& metrics);
  void mark_run_live();
  void stop_ranks();
  [[nodiscard]] bool checkpointed_here() const;
  [[nodiscard]] bool plan_checkpoints_here() const;

  // trial_run_command.cpp: command entrypoints
  void handle(const CommandReported& event);
  void handle(const ReportsJournaled& event);
  // Takes in rank 0's batch that follows the last one taken: the run as it
  // leaves it. nullopt when a capture failed, which ended the trial.
  std::optional<TakenReports> take_report_batch(const wire::MetricReports& batch);
  // Whether `result`, rank `rank`'s answer, carries no reports or only ones
  // that follow the last batch taken (none of the run's batches is missing).
  [[nodiscard]] bool answer_follows_reports(std::uint32_t rank, const wire::WorkloadResult& result) const;
  // Takes in the reports an answer to the `run` carries, with the event's
  // writes. False when the trial stopped here.
  bool take_answered_reports(std::uint32_t rank, const wire::WorkloadResult& result);
  void take_command_report(const wire::MetricReport& report, CommandReportBatch& batch) const;
  Status take_command_checkpoint(const wire::MetricReport& report, CommandReportBatch& batch);
  bool start_command_run();
  void drop_command_staging();
  void discard_checkpoints(const std::vector<std::string>& uuids);
  void drive_command();
  void finish_command_run(const wire::WorkloadResult& result);
  void finish_command();
  // After the ranks of a command that ran to completion stopped, unless the
  // trial was closed or paused meanwhile: idle without slots. False otherwise.
  bool await_search_after_command();
  void report_command_at_target();

  // trial_run_reattach.cpp: taking a live run back after a master restart
  void handle(const RankRejoined& event);
  void relink_rank(std::uint32_t run_id, std::uint32_t rank, const std::string& token,
                   const std::optional<wire::FinishedWorkload>& last, bool hello);
  void handle(const RunAdopted& event);
  void handle(const AdoptFailed& event);
  void handle(const ReattachTimedOut& event);
  void begin_reattach();
  void give_up_reattach(const std::string& why);
  void finish_reattach();
  bool take_journal_standing();
  bool catch_up_with_ranks();

  TrialSetup setup_;
  const bool command_;  // the entrypoint is a command: one `run` per run, checkpoints when it makes them
  training::SchedulePolicy policy_;
  // The searcher's max_length (0: none, as pbt's): no searcher extends a trial past it.
  const std::uint64_t max_length_batches_;
  TrialEffects effects_;  // of the event being handled
  storage::JournalBatch journal_writes_;  // of the event being handled, not yet flushed
  bool record_changed_ = false;           // the record goes in at the flush
  Phase phase_ = Phase::idle;
  training::Progress progress_;
  std::uint64_t target_batches_ = 0;
  bool close_requested_ = false;
  bool pause_requested_ = false;
  bool park_requested_ = false;  // give the slots back once the target's work is done
  bool parking_ = false;         // the ranks stop to give the slots back, not to end
  bool slots_given_back_ = false;  // as the ranks were told to stop: their agents start the next rank once they let go
  // The experiment a preemption under way makes room for (it stops the run
  // as a pause does, then the trial waits for slots again).
  std::optional<std::uint64_t> preempted_for_;
  std::vector<std::string> agent_ids_;  // of the current run, watched, node by node
  std::vector<Rank> ranks_;             // of the current run, index = rank
  std::string token_;                   // the current run's secret
  std::optional<wire::RankGroup> group_;  // the current run's, once its ranks have it
  std::string restore_uuid_;            // checkpoint the current run resumed from ("" = fresh)
  // Batches at the trial's newest checkpoint, the plan's or one taken where a
  // pausing trial stood (progress.last_checkpoint_at counts the plan's only); -1: none.
  std::int64_t newest_checkpoint_at_ = -1;
  MetricMap last_validation_;         // metrics of the validation at progress.last_validation_at
  std::optional<double> best_metric_;  // the trial's best searcher metric so far (checkpoint_policy best)
  std::optional<InFlight> in_flight_;
  // A native run's first workload, planned for its launch (its rank starts it
  // at once) and sent once the rank said hello, to take its answer.
  std::optional<PlannedWorkload> launched_plan_;
  std::uint64_t workloads_sent_ = 0;
  CommandRun command_run_;
  // By run and batch seq: a write of an earlier run may end after a restart.
  std::map<std::pair<std::uint32_t, std::uint64_t>, UnjournaledReports> unjournaled_;
};

// "a, b, c", or "none".
std::string metric_names(const MetricMap& metrics);

// The plan's workload that `request` carries out.
training::Workload as_workload(const wire::WorkloadRequest& request);

// What rank `rank` runs of `request`: rank 0 all of it, another rank its
// chain's checkpoints left out (every rank holds the same model: rank 0
// alone writes it).
wire::WorkloadRequest share_of_rank(wire::WorkloadRequest request, std::uint32_t rank);

}  // namespace volador::master
