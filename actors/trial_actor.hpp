#pragma once
// One trial on the master: gets slots from the pool, has the agent launch its
// rank worker (resuming from the latest good checkpoint), drives the workload
// sequence (train scheduling_unit batches -> metrics, validate and checkpoint
// on schedule and at the searcher's target), journals metrics, checkpoints
// and logs, restarts a failed run up to max_restarts, pauses and resumes.
//
// Messages:
//   (train_to_atom, uint64 batches)          experiment: train to this total, then validate
//   (close_atom)                             experiment: stop gracefully when idle
//   (pause_atom) / (activate_atom)           experiment: checkpoint and free the slots / resume
//   (kill_atom)                              experiment or client: stop now, CANCELED
//   (granted_atom, actor agent, string id)   pool: slots are ours
//   (hello_atom, Bytes RankHello, actor rank) -> bool   a rank worker reports in (via the gateway)
//   (log_atom, Bytes LogLines)               agent: the worker's output
//   (exited_atom, Bytes WorkerExit)          agent: the worker ended
// To the experiment: (validated_atom, uint64 request, double metric, uint64 batches),
// (checkpointed_atom, uint64 request) and finally (trial_ended_atom, uint64 request, string state).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/master_context.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/training/workload_plan.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"

namespace volador::actors {

struct TrialSpec {
  storage::TrialRecord record;  // as journaled (new, or read back after a master restart)
  std::shared_ptr<const config::ExperimentConfig> config;
  std::shared_ptr<const std::string> archive;  // the packed model definition
  std::shared_ptr<checkpoints::CheckpointStore> store;
};

struct TrialState {
  enum class Phase { idle, waiting_for_slots, launching, running, stopping, paused, ended };

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
  caf::actor agent;
  caf::actor rank;
  std::string token;
  std::string restore_uuid;        // checkpoint the current run resumed from ("" = fresh)
  MetricMap last_validation;       // metrics of the validation at progress.last_validation_at
  static inline const char* name = "trial";
};

caf::behavior trial_actor(caf::stateful_actor<TrialState>* self, MasterContext context, TrialSpec spec,
                          caf::actor experiment);

}  // namespace volador::actors
