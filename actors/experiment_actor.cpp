#include "actors/experiment_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/checkpoint_gc.hpp"
#include "actors/trial_actor.hpp"

namespace volador::actors {
namespace {

using Self = caf::stateful_actor<ExperimentState>*;

void log_failure(Self self, const Status& status, const char* what) {
  if (!status) spdlog::error("experiment {}: {} failed: {}", self->state.record.id, what, status.error().message);
}

void finish_if_done(Self self) {
  auto& st = self->state;
  if (!st.shutdown) return;
  bool any_completed = false;
  for (const auto& [request, trial] : st.trials) {
    if (!trial.ended) return;
    any_completed |= !trial.errored;
  }
  const bool failed = !st.killed && (st.search_failed || !any_completed);
  st.record.state = st.killed ? RunState::canceled : failed ? RunState::error : RunState::completed;
  if (failed) st.record.error_message = st.trials.empty() ? "the search created no trial" : "every trial failed";
  st.record.progress = 1.0;
  st.record.ended_at_ms = now_ms();
  log_failure(self, st.context.journal->put_experiment(st.record), "journaling its end");
  spdlog::info("experiment {} ended {}", st.record.id, to_string(st.record.state));
  self->quit();
}

void apply(Self self, search::Operations operations);

// The trial with this request id if it exists and has not ended, else null.
ExperimentState::Trial* running_trial(Self self, search::RequestId request) {
  auto it = self->state.trials.find(request);
  return it == self->state.trials.end() || it->second.ended ? nullptr : &it->second;
}

void create_trial(Self self, const search::CreateTrial& op) {
  auto& st = self->state;
  auto id = st.context.journal->next_id("trial");
  if (!id) {
    spdlog::error("experiment {}: cannot allocate a trial id: {}", st.record.id, id.error().message);
    return apply(self, st.searcher->on_trial_exited_early(op.request_id, search::ExitReason::errored));
  }
  storage::TrialRecord record;
  record.id = *id;
  record.experiment_id = st.record.id;
  record.request_id = op.request_id;
  record.hparams = op.hparams;
  record.seed = op.seed;
  record.created_at_ms = now_ms();
  if (st.record.state == RunState::paused) record.state = RunState::paused;  // starts when activated
  log_failure(self, st.context.journal->put_trial(record), "journaling a new trial");
  auto actor = self->spawn(trial_actor, st.context, TrialSpec{record, st.config, st.archive, st.store},
                           caf::actor_cast<caf::actor>(self));
  st.trials[op.request_id] = {record.id, actor};
  apply(self, st.searcher->on_trial_created(op.request_id));
}

void apply(Self self, search::Operations operations) {
  auto& st = self->state;
  for (const auto& operation : operations) {
    std::visit(
        [&](const auto& op) {
          using Op = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<Op, search::CreateTrial>) {
            create_trial(self, op);
          } else if constexpr (std::is_same_v<Op, search::ValidateAfter>) {
            if (auto* trial = running_trial(self, op.request_id)) self->send(trial->actor, train_to_atom::value, op.batches);
          } else if constexpr (std::is_same_v<Op, search::CloseTrial>) {
            if (auto* trial = running_trial(self, op.request_id)) self->send(trial->actor, close_atom::value);
          } else {
            st.shutdown = true;
            st.search_failed = op.failure;
          }
        },
        operation);
  }
}

void collect_garbage(Self self) {
  auto& st = self->state;
  auto deleted = collect_checkpoint_garbage(*st.context.journal, *st.store, st.record.id, *st.config);
  if (!deleted) spdlog::error("experiment {}: checkpoint GC failed: {}", st.record.id, deleted.error().message);
}

// Sends `message` to every trial still running and journals the new state.
template <class Atom>
bool set_state(Self self, RunState state, Atom message) {
  auto& st = self->state;
  for (auto& [request, trial] : st.trials)
    if (!trial.ended) self->send(trial.actor, message);
  st.record.state = state;
  log_failure(self, st.context.journal->put_experiment(st.record), "journaling its state");
  return true;
}

caf::error refusal(Self self, RunState expected, const char* verb) {
  return to_caf_error(Error::invalid_argument(fmt::format("experiment {} is {}; only {} experiments can be {}",
                                                          self->state.record.id, to_string(self->state.record.state),
                                                          to_string(expected), verb)));
}

// Journals the searcher's state and progress after an event.
void checkpoint_search(Self self) {
  auto& st = self->state;
  log_failure(self, st.context.journal->put_searcher_state(st.record.id, st.searcher->save_state()),
              "journaling the searcher state");
  st.record.progress = st.searcher->progress();
  log_failure(self, st.context.journal->put_experiment(st.record), "journaling progress");
}

}  // namespace

caf::behavior experiment_actor(Self self, MasterContext context, storage::ExperimentRecord record,
                               std::shared_ptr<const config::ExperimentConfig> config,
                               std::shared_ptr<const std::string> archive,
                               std::shared_ptr<checkpoints::CheckpointStore> store,
                               std::shared_ptr<search::Searcher> searcher) {
  auto& st = self->state;
  st.context = std::move(context);
  st.record = std::move(record);
  st.config = std::move(config);
  st.archive = std::move(archive);
  st.store = std::move(store);
  st.searcher = std::move(searcher);
  apply(self, st.searcher->initial_operations());
  checkpoint_search(self);
  finish_if_done(self);
  return {
      [=](validated_atom, std::uint64_t request, double metric, std::uint64_t batches) {
        apply(self, self->state.searcher->on_validation_completed(request, metric, batches));
        checkpoint_search(self);
      },
      [=](checkpointed_atom, std::uint64_t) { collect_garbage(self); },
      [=](pause_atom) -> caf::result<bool> {
        if (self->state.record.state != RunState::active) return refusal(self, RunState::active, "paused");
        return set_state(self, RunState::paused, pause_atom::value);
      },
      [=](activate_atom) -> caf::result<bool> {
        if (self->state.record.state != RunState::paused) return refusal(self, RunState::paused, "activated");
        return set_state(self, RunState::active, activate_atom::value);
      },
      [=](kill_atom) -> caf::result<bool> {
        self->state.killed = true;
        self->state.shutdown = true;
        for (auto& [request, trial] : self->state.trials)
          if (!trial.ended) self->send(trial.actor, kill_atom::value);
        finish_if_done(self);
        return true;
      },
      [=](trial_ended_atom, std::uint64_t request, const std::string& state) {
        auto* trial = running_trial(self, request);
        if (trial == nullptr) return;
        trial->ended = true;
        trial->errored = state == to_string(RunState::error);
        if (!self->state.killed) {
          auto& searcher = *self->state.searcher;
          if (state == to_string(RunState::completed)) apply(self, searcher.on_trial_closed(request));
          else apply(self, searcher.on_trial_exited_early(request, trial->errored ? search::ExitReason::errored
                                                                                  : search::ExitReason::user_canceled));
          checkpoint_search(self);
        }
        finish_if_done(self);
      },
  };
}

}  // namespace volador::actors
