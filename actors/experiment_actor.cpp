#include "actors/experiment_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "master/checkpoint_gc.hpp"
#include "actors/trial_actor.hpp"
#include "master/trial_resume.hpp"
#include "runtime/core/clock.hpp"

namespace volador::actors {
namespace {

using Self = ExperimentActor::stateful_pointer<ExperimentState>;

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
  if (failed && st.record.error_message.empty())
    st.record.error_message = st.trials.empty() ? "the search created no trial" : "every trial failed";
  st.record.progress = 1.0;
  st.record.ended_at_ms = system_now_ms();
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

TrialActor spawn_trial(Self self, const storage::TrialRecord& record) {
  auto& st = self->state;
  return self->spawn(trial_actor, st.context, master::TrialSpec{record, st.config, st.archive, st.store}, ExperimentActor(self));
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
  record.created_at_ms = system_now_ms();
  if (st.record.state == RunState::paused) record.state = RunState::paused;  // starts when activated
  st.pending.put_trial(record);  // journaled with the search state that knows it
  st.trials[op.request_id] = {record.id, spawn_trial(self, record)};
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
            if (auto* trial = running_trial(self, op.request_id)) {
              trial->target = op.batches;
              self->send(trial->actor, train_to_atom::value, op.batches);
            }
          } else if constexpr (std::is_same_v<Op, search::CloseTrial>) {
            if (auto* trial = running_trial(self, op.request_id)) {
              trial->closing = true;
              self->send(trial->actor, close_atom::value);
            }
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
  auto deleted = master::collect_checkpoint_garbage(*st.context.journal, *st.store, st.record.id, *st.config);
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

// Everything a restarted master needs to continue the search identically:
// the searcher's own state and what was asked of each trial.
nlohmann::json search_state_json(const ExperimentState& st) {
  nlohmann::json trials = nlohmann::json::object();
  for (const auto& [request, t] : st.trials)
    trials[std::to_string(request)] = {
        {"target", t.target}, {"closing", t.closing}, {"validated", t.validated}, {"ended", t.ended}};
  return {{"searcher", st.searcher->save_state()}, {"trials", trials}, {"shutdown", st.shutdown},
          {"search_failed", st.search_failed}};
}

// Journals, in one synced batch, the new trials, the search state and the
// progress after an event: a crash leaves either all of it or none.
void checkpoint_search(Self self) {
  auto& st = self->state;
  st.record.progress = st.searcher->progress();
  st.pending.put_searcher_state(st.record.id, search_state_json(st)).put_experiment(st.record);
  log_failure(self, st.context.journal->commit(st.pending), "journaling the search state");
  st.pending = {};
}

// The searcher's answer to a trial that ended (COMPLETED, CANCELED or ERROR).
search::Operations trial_end_event(search::Searcher& searcher, search::RequestId request, RunState state) {
  if (state == RunState::completed) return searcher.on_trial_closed(request);
  return searcher.on_trial_exited_early(
      request, state == RunState::error ? search::ExitReason::errored : search::ExitReason::user_canceled);
}

// Tells the searcher of the validations `trial` journaled after the last one
// it saw, and marks them seen; the searcher's answers.
Result<search::Operations> replay_unseen_validations(Self self, const storage::TrialRecord& record,
                                                     ExperimentState::Trial& trial) {
  auto& st = self->state;
  auto unseen = master::unseen_validations(*st.context.journal, record.id, st.config->searcher.metric, trial.validated);
  if (!unseen) return fail(unseen.error());
  search::Operations out;
  for (const auto& [batches, value] : *unseen) {
    trial.validated = batches;
    auto ops = st.searcher->on_validation_completed(record.request_id, value, batches);
    out.insert(out.end(), ops.begin(), ops.end());
  }
  return out;
}

// Rebuilds the search from the journal: the searcher's state, and an actor
// for every unfinished trial, told again what it was last asked. Trials that
// ended, or validated, after the search state was last journaled are
// reported to the searcher now.
Status recover(Self self, const ExperimentRecovery& recovery) {
  auto& st = self->state;
  search::Operations missed;
  try {
    const auto& state = recovery.search_state;
    if (auto loaded = st.searcher->load_state(state.at("searcher")); !loaded) return loaded;
    st.shutdown = state.at("shutdown").get<bool>();
    st.search_failed = state.at("search_failed").get<bool>();
    for (const auto& record : recovery.trials) {
      const auto& saved = state.at("trials").at(std::to_string(record.request_id));
      ExperimentState::Trial trial{record.id, {}, is_terminal(record.state), record.state == RunState::error,
                                   saved.at("target").get<std::uint64_t>(), saved.at("closing").get<bool>(),
                                   saved.at("validated").get<std::uint64_t>()};
      if (!trial.ended) {
        trial.actor = spawn_trial(self, record);
        if (trial.closing) self->send(trial.actor, close_atom::value);
        else if (trial.target > 0) self->send(trial.actor, train_to_atom::value, trial.target);
        auto ops = replay_unseen_validations(self, record, trial);
        if (!ops) return fail(ops.error());
        missed.insert(missed.end(), ops->begin(), ops->end());
      } else if (!saved.at("ended").get<bool>()) {
        auto ops = trial_end_event(*st.searcher, record.request_id, record.state);
        missed.insert(missed.end(), ops.begin(), ops.end());
      }
      st.trials[record.request_id] = trial;
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("the journaled search state does not decode: ") + e.what()));
  }
  apply(self, std::move(missed));
  checkpoint_search(self);
  return {};
}

}  // namespace

ExperimentActor::behavior_type experiment_actor(Self self, MasterContext context, storage::ExperimentRecord record,
                                               std::shared_ptr<const config::ExperimentConfig> config,
                                               std::shared_ptr<const std::string> archive,
                                               std::shared_ptr<checkpoints::CheckpointStore> store,
                                               std::shared_ptr<search::Searcher> searcher,
                                               std::shared_ptr<const ExperimentRecovery> recovery) {
  auto& st = self->state;
  st.context = std::move(context);
  st.record = std::move(record);
  st.config = std::move(config);
  st.archive = std::move(archive);
  st.store = std::move(store);
  st.searcher = std::move(searcher);
  if (!recovery) {
    apply(self, st.searcher->initial_operations());
    checkpoint_search(self);
  } else if (auto recovered = recover(self, *recovery); !recovered) {
    spdlog::error("experiment {} cannot continue: {}", st.record.id, recovered.error().message);
    st.record.error_message = recovered.error().message;
    st.shutdown = st.search_failed = true;
    for (auto& [request, trial] : st.trials) trial.ended = true;
  }
  finish_if_done(self);
  return {
      [=](validated_atom, std::uint64_t request, double metric, std::uint64_t batches) {
        auto* trial = running_trial(self, request);
        // A trial resumed from a checkpoint may validate again at batches the searcher saw.
        if (trial == nullptr || (batches <= trial->validated && trial->validated > 0)) return;
        trial->validated = batches;
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
      [=](trial_ended_atom, std::uint64_t request, RunState state) {
        auto* trial = running_trial(self, request);
        if (trial == nullptr) return;
        trial->ended = true;
        trial->errored = state == RunState::error;
        if (!self->state.killed) {
          apply(self, trial_end_event(*self->state.searcher, request, state));
          checkpoint_search(self);
        }
        finish_if_done(self);
      },
  };
}

}  // namespace volador::actors
