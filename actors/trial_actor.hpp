#pragma once
// One trial on the master: gets all its slots from the pool at once, has the
// agents launch one rank worker per slot (resuming from the latest good
// checkpoint), answers the ranks' hellos with their group once all reported
// (the data-plane rendezvous), drives the workload sequence (train
// scheduling_unit batches -> metrics, validate and checkpoint on schedule and
// at the searcher's target) on every rank, journals rank 0's metrics (already
// averaged over ranks), checkpoints (rank 0 writes them) and logs, restarts a
// failed run up to max_restarts, pauses and resumes.
//
// A command entrypoint runs to completion by itself: each run sends one
// `run` workload to every rank. Rank 0's reports are journaled as they come
// (validation metrics at the script's step, or 1, 2, ... without one; losses
// as training metrics) and those holding the searcher metric before the
// target go to the searcher (goals, early stopping). When the command exits
// cleanly its latest metrics (the final result winning) are journaled at the
// searcher's target and validated there, which completes the trial. It has
// no checkpoints: a failed run restarts the command from scratch (within
// max_restarts), a pause stops it and activation runs it again from scratch.
//
// After a master restart, a trial whose run was live (its record names the
// run's agents, from the run's first answered workload on: by then every
// rank holds its group) first tries to take that run back: it claims the run's
// workers from the pool (held once their agents registered again) and waits
// for every rank to rejoin. Each rank resends its last finished workload
// with the answer, which the journal may lack; the trial applies it if so,
// and the run goes on where it stands. If the run does not come back whole
// within kReattachGrace, the trial restarts from its checkpoint (not counted
// as a restart). Command trials always restart: their reports during the
// outage are lost.
//
// Messages:
//   (train_to_atom, uint64 batches)          experiment: train to this total, then validate
//   (close_atom)                             experiment: stop gracefully when idle
//   (pause_atom) / (activate_atom)           experiment: checkpoint and free the slots / resume
//   (kill_atom)                              experiment or client: stop now, CANCELED
//   (granted_atom, vector<GrantedAgent>)     pool: slots are ours
//   (hello_atom, Bytes RankHello, actor rank) -> Bytes RankGroup
//                                            a rank worker reports in (via the gateway);
//                                            answered once every rank has
//   (rejoin_atom, Bytes RankRejoin, actor rank) -> bool
//                                            a rank of the run a restarted master found
//                                            live reports in again (see below)
//   (reattach_timeout_atom, uint32 run)      (to itself) the run did not come back in time
//   (log_atom, Bytes LogLines)               agent: the worker's output
//   (exited_atom, Bytes WorkerExit)          agent: the worker ended
//   (report_atom, Bytes MetricReport)        a command rank: metrics its command printed
// To the experiment: (validated_atom, uint64 request, double metric, uint64 batches),
// (checkpointed_atom, uint64 request) and finally (trial_ended_atom, uint64 request, string state).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/master_context.hpp"
#include "actors/resource_pool_actor.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/training/workload_plan.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::actors {

struct TrialSpec {
  storage::TrialRecord record;  // as journaled (new, or read back after a master restart)
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;  // the packed model definition
  std::shared_ptr<checkpoints::CheckpointStore> store;
};

// One rank of the current run.
struct RankSlot {
  caf::actor agent;                            // where it runs
  caf::actor worker;                           // its session, once it reported in
  std::optional<caf::response_promise> hello;  // its hello (answered with the group) or rejoin
  // A rejoining rank's last workload and its answer, when it had finished one.
  std::optional<wire::FinishedWorkload> last;
  wire::RankAddress address;                   // its data-plane listener
  bool stopped = false;                        // exited cleanly after shutdown
};

// What the current run's command reported so far (rank 0's reports only).
struct CommandRun {
  std::uint64_t reports = 0;       // reports without a step, numbered 1, 2, ...
  MetricMap reported;              // the latest value of every validation metric
  std::uint64_t forwarded_at = 0;  // batches of the last report sent to the searcher
  bool finished = false;           // the command exited successfully
};

struct TrialState {
  enum class Phase { idle, waiting_for_slots, launching, reattaching, running, stopping, paused, ended };

  MasterContext context;
  TrialSpec spec;
  caf::actor experiment;
  training::SchedulePolicy policy;
  training::Progress progress;
  std::uint64_t target_batches = 0;
  bool close_requested = false;
  bool pause_requested = false;
  bool workload_in_flight = false;
  Phase phase = Phase::idle;
  std::vector<caf::actor> agents;  // of the current run, monitored
  std::vector<std::string> agent_ids;  // their names, in the same order
  std::vector<RankSlot> ranks;     // of the current run, index = rank
  std::string token;
  std::string restore_uuid;        // checkpoint the current run resumed from ("" = fresh)
  // Batches at the trial's newest checkpoint, the plan's or one taken where a
  // pausing trial stood (progress.last_checkpoint_at counts the plan's only); -1: none.
  std::int64_t newest_checkpoint_at = -1;
  MetricMap last_validation;       // metrics of the validation at progress.last_validation_at
  std::optional<double> best_metric;  // the trial's best searcher metric so far (checkpoint_policy best)
  bool command = false;               // the entrypoint is a command: one `run` per run, no checkpoints
  CommandRun command_run;             // of the current run
  static inline const char* name = "trial";
};

caf::behavior trial_actor(caf::stateful_actor<TrialState>* self, MasterContext context, TrialSpec spec,
                          caf::actor experiment);

}  // namespace volador::actors
