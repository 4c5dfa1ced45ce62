#include "actors/experiment_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
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
  const bool failed = st.search_failed || !any_completed;
  st.record.state = failed ? RunState::error : RunState::completed;
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
  log_failure(self, st.context.journal->put_trial(record), "journaling a new trial");
  auto actor = self->spawn(trial_actor, st.context, TrialSpec{record, st.config, st.archive},
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
                               std::shared_ptr<const std::string> archive, std::shared_ptr<search::Searcher> searcher) {
  auto& st = self->state;
  st.context = std::move(context);
  st.record = std::move(record);
  st.config = std::move(config);
  st.archive = std::move(archive);
  st.searcher = std::move(searcher);
  apply(self, st.searcher->initial_operations());
  checkpoint_search(self);
  finish_if_done(self);
  return {
      [=](validated_atom, std::uint64_t request, double metric, std::uint64_t batches) {
        apply(self, self->state.searcher->on_validation_completed(request, metric, batches));
        checkpoint_search(self);
      },
      [=](trial_ended_atom, std::uint64_t request, const std::string& state) {
        auto* trial = running_trial(self, request);
        if (trial == nullptr) return;
        trial->ended = true;
        trial->errored = state != to_string(RunState::completed);
        auto& searcher = *self->state.searcher;
        apply(self, trial->errored ? searcher.on_trial_exited_early(request, search::ExitReason::errored)
                                  : searcher.on_trial_closed(request));
        checkpoint_search(self);
        finish_if_done(self);
      },
  };
}

}  // namespace volador::actors
