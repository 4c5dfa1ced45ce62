#include "actors/experiment_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "master/checkpoint_gc.hpp"
#include "master/experiment_continuation.hpp"
#include "master/pool_admission.hpp"
#include "actors/trial_actor.hpp"
#include "master/trial_resume.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/overloaded.hpp"

namespace volador::actors {
namespace {

using Self = ExperimentActor::stateful_pointer<ExperimentState>;

void log_failure(Self self, const Status& status, const char* what) {
  if (!status) spdlog::error("experiment {}: {} failed: {}", self->state.record.id, what, status.error().message);
}

master::SearchLog& search_of(Self self) { return *self->state.search; }

// The trial with this request id has ended (or was never created).
bool trial_ended(Self self, search::RequestId request) {
  const auto* progress = search_of(self).trial(request);
  return progress == nullptr || progress->ended;
}

// Whether the experiment ends once its trials have: its search shut down, it was killed, or it could not be recovered.
bool winding_down(const ExperimentState& st) {
  return st.record.killed || st.unrecoverable || (st.search && st.search->progress().shutdown);
}

bool search_failed(const ExperimentState& st) {
  return st.unrecoverable || (st.search && st.search->progress().search_failed);
}

// Answers the users' kills that wait for the kill to be written: true once
// it is, else why not.
void answer_kills(Self self, const Status& written) {
  for (auto& answer : std::exchange(self->state.kill_answers, {})) {
    if (written) answer.deliver(true);
    else answer.deliver(to_caf_error(Error::io("the kill was not journaled, so a master restart may resume the "
                                               "experiment: " + written.error().message)));
  }
}

void finish_if_done(Self self) {
  auto& st = self->state;
  if (!winding_down(st)) return;
  bool any_completed = false;
  for (const auto& [request, trial] : st.trials) {
    if (!trial_ended(self, request)) return;
    any_completed |= !trial.errored;
  }
  const bool failed = !st.record.killed && (search_failed(st) || !any_completed);
  st.record.state = st.record.killed ? RunState::canceled : failed ? RunState::error : RunState::completed;
  if (failed && st.record.error_message.empty())
    st.record.error_message = st.trials.empty() ? "the search created no trial" : "every trial failed";
  st.record.progress = 1.0;
  st.record.ended_at_ms = system_now_ms();
  const Status ended = st.context.journal->put_experiment(st.record);
  log_failure(self, ended, "journaling its end");
  answer_kills(self, ended);  // the end, CANCELED, holds the kill
  spdlog::info("experiment {} ended {}", st.record.id, to_string(st.record.state));
  self->quit();
}

void apply(Self self, search::Operations operations);

// The trial with this request id if it exists and has not ended, else null.
ExperimentState::Trial* running_trial(Self self, search::RequestId request) {
  auto it = self->state.trials.find(request);
  return it == self->state.trials.end() || trial_ended(self, request) ? nullptr : &it->second;
}

TrialActor spawn_trial(Self self, const storage::TrialRecord& record) {
  auto& st = self->state;
  master::TrialSpec spec{record, st.config, st.archive, st.store, master::trial_pool(st.record, st.config->resources)};
  return self->spawn(trial_actor, st.context, std::move(spec), ExperimentActor(self));
}

// pbt's exploit: the new trial starts from the newest checkpoint of `parent`
// (taken where the parent reported the round that made it a parent); from
// the beginning when there is none, and then the line for its log that says so.
std::string take_parent_checkpoint(Self self, search::RequestId parent, storage::TrialRecord& record) {
  auto& st = self->state;
  const auto it = st.trials.find(parent);
  const Status taken = it == st.trials.end()
                           ? fail(Error::not_found(fmt::format("the search has no trial {}", parent)))
                           : master::warm_start_from(*st.context.journal, it->second.id, record);
  if (taken) return "";
  std::string why = "it cannot start from its parent's checkpoint (" + taken.error().message +
                    "): it trains from the beginning";
  spdlog::warn("experiment {}: trial {}: {}", st.record.id, record.id, why);
  return why;
}

void create_trial(Self self, const search::CreateTrial& op) {
  auto& st = self->state;
  auto id = st.context.journal->reserve_id("trial");
  if (!id) {
    spdlog::error("experiment {}: cannot allocate a trial id: {}", st.record.id, id.error().message);
    return apply(self, search_of(self).trial_exited_early(op.request_id, search::ExitReason::errored));
  }
  storage::TrialRecord record;
  record.id = *id;
  record.experiment_id = st.record.id;
  record.request_id = op.request_id;
  record.hparams = op.hparams;
  record.seed = op.seed;
  record.created_at_ms = system_now_ms();
  master::take_continued_trial(st.record, record);
  std::string note = op.warm_start_from ? take_parent_checkpoint(self, *op.warm_start_from, record) : "";
  if (st.record.state == RunState::paused) record.state = RunState::paused;  // starts when activated
  st.pending.raise_counter("trial", record.id).put_trial(record);  // journaled with the search event that knows it
  if (st.checkpoints) st.checkpoints->index.put_trial(record);
  st.trials[op.request_id] = {record.id, {}, false};
  st.orders.emplace_back(trial_orders::Start{std::move(record), std::move(note)});
  apply(self, search_of(self).trial_created(op.request_id));
}

void apply(Self self, search::Operations operations) {
  for (const auto& operation : operations) {
    std::visit(
        [&](const auto& op) {
          using Op = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<Op, search::CreateTrial>) {
            create_trial(self, op);
          } else if constexpr (std::is_same_v<Op, search::ValidateAfter>) {
            if (running_trial(self, op.request_id) != nullptr) {
              search_of(self).asked_to_validate(op.request_id, op.batches);
              self->state.orders.emplace_back(trial_orders::TrainTo{op.request_id, op.batches});
            }
          } else if constexpr (std::is_same_v<Op, search::CloseTrial>) {
            if (running_trial(self, op.request_id) != nullptr) {
              search_of(self).asked_to_close(op.request_id);
              self->state.orders.emplace_back(trial_orders::Tell{op.request_id, trial_orders::Signal::close});
            }
          } else {
            search_of(self).shut_down(op.failure);
          }
        },
        operation);
  }
}

// A trial that has validated at its target and was given nothing more waits
// on its search (pbt's round, for the other trials): parked, it gives its
// slots back meanwhile, so the trials it waits for can run, and takes new
// ones with its next target.
void park_if_waiting(Self self, search::RequestId request) {
  if (running_trial(self, request) == nullptr) return;
  const auto& progress = *search_of(self).trial(request);
  if (!progress.closing && progress.target > 0 && progress.validated >= progress.target)
    self->state.orders.emplace_back(trial_orders::Tell{request, trial_orders::Signal::park});
}

// Tells the experiment (if it still runs) to take a GC step, from any thread.
std::function<void()> gc_step_cue(Self self) {
  return [experiment = caf::actor_cast<caf::weak_actor_ptr>(self->ctrl())] {
    if (auto alive = caf::actor_cast<caf::strong_actor_ptr>(experiment))
      caf::anon_send(caf::actor_cast<ExperimentActor>(alive), checkpointed_atom::value, std::uint64_t{0});
  };
}

// One checkpoint GC step, after a trial checkpointed or a checkpoint record
// was written; the first loads the experiment's checkpoint index from the
// journal, which cues a step for every record written from then on.
void collect_garbage(Self self) {
  auto& st = self->state;
  if (!st.checkpoints) {
    auto loaded = master::load_checkpoint_index(*st.context.journal, st.record.id, *st.config, gc_step_cue(self));
    if (!loaded) return log_failure(self, fail(loaded.error()), "loading the checkpoint index");
    st.checkpoints.emplace(std::move(*loaded));
  }
  auto deleted = master::collect_checkpoint_garbage(*st.context.journal, *st.store, *st.checkpoints);
  if (!deleted) spdlog::error("experiment {}: checkpoint GC failed: {}", st.record.id, deleted.error().message);
}

// Tells the checkpoint index (once loaded) that trial `trial_id` ended.
void forget_resume_point(Self self, std::uint64_t trial_id) {
  if (self->state.checkpoints) self->state.checkpoints->index.end_trial(trial_id);
}

// Journals the new state, then sends `message` to every trial still running:
// the trials follow the experiment's journaled state, also after a crash
// between the two (recover() tells them again).
template <class Atom>
bool set_state(Self self, RunState state, Atom message) {
  auto& st = self->state;
  st.record.state = state;
  log_failure(self, st.context.journal->put_experiment(st.record), "journaling its state");
  for (auto& [request, trial] : st.trials)
    if (!trial_ended(self, request)) self->send(trial.actor, message);
  return true;
}

caf::error refusal(Self self, RunState expected, const char* verb) {
  if (self->state.record.killed)
    return to_caf_error(Error::invalid_argument(
        fmt::format("experiment {} is being killed; it cannot be {}", self->state.record.id, verb)));
  return to_caf_error(Error::invalid_argument(fmt::format("experiment {} is {}; only {} experiments can be {}",
                                                          self->state.record.id, to_string(self->state.record.state),
                                                          to_string(expected), verb)));
}

// The actor of the trial with this request id; null for one the experiment does not know.
TrialActor actor_of(Self self, search::RequestId request) {
  const auto it = self->state.trials.find(request);
  return it == self->state.trials.end() ? TrialActor() : it->second.actor;
}

// Queues `line` for the log of trial `trial_id` (written without waiting; a failure is logged).
void queue_log_line(Self self, std::uint64_t trial_id, const std::string& line) {
  const auto logged = [experiment = self->state.record.id, trial_id](const Status& written) {
    if (!written) spdlog::error("experiment {}: trial {}: journaling a log line failed: {}", experiment, trial_id,
                                written.error().message);
  };
  self->state.context.journal->append_logs_async(trial_id, {{trial_id, 0, system_now_ms(), "system", line}}, logged);
}

// Starts the trial's actor, its note (if any) first in its log.
void start_trial(Self self, const trial_orders::Start& start) {
  if (!start.note.empty()) queue_log_line(self, start.record.id, start.note);
  self->state.trials.at(start.record.request_id).actor = spawn_trial(self, start.record);
}

// Sends `trial` the message `signal` names.
void tell(Self self, const TrialActor& trial, trial_orders::Signal signal) {
  switch (signal) {
    case trial_orders::Signal::close: return self->send(trial, close_atom::value);
    case trial_orders::Signal::park: return self->send(trial, park_atom::value);
    case trial_orders::Signal::pause: return self->send(trial, pause_atom::value);
    case trial_orders::Signal::activate: return self->send(trial, activate_atom::value);
    case trial_orders::Signal::kill: return self->send(trial, kill_atom::value);
  }
}

// Carries out, in order, the orders held since the last batch was queued.
void carry_out_orders(Self self) {
  for (const auto& order : std::exchange(self->state.orders, {})) {
    std::visit(Overloaded{
                   [&](const trial_orders::Start& o) { start_trial(self, o); },
                   [&](const trial_orders::TrainTo& o) {
                     self->send(actor_of(self, o.request), train_to_atom::value, o.batches);
                   },
                   [&](const trial_orders::Tell& o) { tell(self, actor_of(self, o.request), o.signal); },
               },
               order);
  }
}

// Queues `pending` as one batch: a crash leaves either all of it or none.
// Not waited for: only then are the orders held for it carried out, so
// whatever the trials journal in answer is queued, so written, after it.
// `written` hears how the write went, on the journal's thread.
void queue_pending(Self self, std::function<void(const Status&)> written) {
  auto& st = self->state;
  st.context.journal->commit_async(std::make_shared<storage::JournalBatch>(std::exchange(st.pending, {})),
                                   std::move(written));
  carry_out_orders(self);
}

// Queues, as one batch (queue_pending), the new trials, the search's event
// (or a snapshot of it) and the progress after an event. A failed write
// comes back as journaled_atom.
void checkpoint_search(Self self) {
  auto& st = self->state;
  st.record.progress = search_of(self).searcher().progress();
  search_of(self).journal(st.pending, st.record.id);
  st.pending.put_experiment(st.record);
  queue_pending(self, [experiment = ExperimentActor(self)](const Status& written) {
    // As the experiment itself: a local sender.
    if (!written) caf::send_as(experiment, experiment, journaled_atom::value, written.error().message);
  });
}

// Queues the experiment's record marked killed, then tells every trial still
// running to kill itself: a master that dies in between finds the mark and
// finishes the kill (recover()), so a killed experiment never resumes. The
// answer comes once the mark is written (journaled_atom, kill_atom); the
// experiment ends CANCELED once its trials have.
caf::result<bool> kill_experiment(Self self) {
  auto& st = self->state;
  if (st.record.killed) {
    if (st.kill_answers.empty()) return true;  // written already
    return st.kill_answers.emplace_back(self->make_response_promise<bool>());
  }
  auto answer = st.kill_answers.emplace_back(self->make_response_promise<bool>());
  st.record.killed = true;
  st.pending.put_experiment(st.record);
  for (const auto& [request, trial] : st.trials)
    if (!trial_ended(self, request)) st.orders.emplace_back(trial_orders::Tell{request, trial_orders::Signal::kill});
  queue_pending(self, [experiment = ExperimentActor(self)](const Status& written) {
    // As the experiment itself: a local sender.
    caf::send_as(experiment, experiment, journaled_atom::value, kill_atom::value,
                 written ? std::string() : written.error().message);
  });
  finish_if_done(self);
  return answer;
}

// Marks the trial ended and, unless `killed`, tells the searcher how it ended
// (COMPLETED, CANCELED or ERROR); the searcher's answer.
search::Operations end_trial(master::SearchLog& search, search::RequestId request, RunState state, bool killed) {
  search.trial_ended(request);
  if (killed) return {};
  if (state == RunState::completed) return search.trial_closed(request);
  return search.trial_exited_early(
      request, state == RunState::error ? search::ExitReason::errored : search::ExitReason::user_canceled);
}

// Tells the searcher of the validations `trial` journaled after the last one
// it saw, and marks them seen; the searcher's answers. The validation at the
// target of a trial the master drives waits for the checkpoint there (the
// trial reports it then).
Result<search::Operations> replay_unseen_validations(Self self, const storage::TrialRecord& record,
                                                     const master::TrialProgress& saved) {
  auto& st = self->state;
  const bool runs_itself = std::holds_alternative<command::CommandEntrypoint>(st.config->entrypoint.kind);
  const auto held_target = runs_itself ? std::nullopt : std::optional(saved.target);
  auto unseen = master::unseen_validations(*st.context.journal, record.id, st.config->searcher.metric, saved.validated,
                                           held_target);
  if (!unseen) return fail(unseen.error());
  search::Operations out;
  for (const auto& [batches, value] : *unseen) {
    auto ops = search_of(self).validation_completed(record.request_id, value, batches);
    out.insert(out.end(), ops.begin(), ops.end());
  }
  return out;
}

// The progress of each of `trials` in `search`; corruption naming the first
// trial it does not know.
Result<std::vector<master::TrialProgress>> progress_of(const master::SearchLog& search,
                                                       const std::vector<storage::TrialRecord>& trials) {
  std::vector<master::TrialProgress> progress;
  for (const auto& record : trials) {
    const auto* known = search.trial(record.request_id);
    if (known == nullptr)
      return fail(Error::corruption("the journaled search state does not know trial " + std::to_string(record.id)));
    progress.push_back(*known);
  }
  return progress;
}

// Tells the recovered trial `record` to pause or go on as its experiment
// does, if the master stopped before the trial heard of the experiment's
// last pause or activation (set_state).
void follow_experiment_state(Self self, const storage::TrialRecord& record) {
  auto& st = self->state;
  if (st.record.state == RunState::paused && record.state == RunState::active)
    st.orders.emplace_back(trial_orders::Tell{record.request_id, trial_orders::Signal::pause});
  else if (st.record.state == RunState::active && record.state == RunState::paused)
    st.orders.emplace_back(trial_orders::Tell{record.request_id, trial_orders::Signal::activate});
}

// Holds the orders that give the recovered, still running trial `record`
// an actor told again what it was last asked (`saved`); the searcher's
// answers to the validations it journaled that the search has not seen.
Result<search::Operations> resume_trial(Self self, const storage::TrialRecord& record,
                                        const master::TrialProgress& saved) {
  auto& st = self->state;
  st.orders.emplace_back(trial_orders::Start{record, ""});
  follow_experiment_state(self, record);
  if (saved.closing) st.orders.emplace_back(trial_orders::Tell{record.request_id, trial_orders::Signal::close});
  else if (saved.target > 0) st.orders.emplace_back(trial_orders::TrainTo{record.request_id, saved.target});
  return replay_unseen_validations(self, record, saved);
}

// The recovered trial `record` of a killed experiment, which its search has
// not seen end: one still running gets an actor only to be killed (which
// ends its run, if live); one that ended is marked ended. The searcher hears
// of neither.
void finish_killing(Self self, const storage::TrialRecord& record) {
  auto& st = self->state;
  if (is_terminal(record.state)) {
    end_trial(search_of(self), record.request_id, record.state, true);
    return;
  }
  st.orders.emplace_back(trial_orders::Start{record, ""});
  st.orders.emplace_back(trial_orders::Tell{record.request_id, trial_orders::Signal::kill});
}

// Rebuilds the search from the journal: the searcher's state (the snapshot
// and the events since), and an actor for every unfinished trial, told again
// what it was last asked. Trials that ended, or validated, after the search
// state was last journaled are reported to the searcher now. No trial is
// started before all of it succeeded and its batch is queued. An experiment
// journaled killed instead finishes its kill (finish_killing).
Status recover(Self self, std::shared_ptr<search::Searcher> searcher, const ExperimentRecovery& recovery) {
  auto& st = self->state;
  auto search = master::SearchLog::recover(std::move(searcher), recovery.search_state);
  if (!search) return fail(search.error());
  auto progress = progress_of(*search, recovery.trials);
  if (!progress) return fail(progress.error());
  st.search = std::move(*search);
  search::Operations missed;
  for (std::size_t i = 0; i < recovery.trials.size(); ++i) {
    const auto& record = recovery.trials[i];
    const auto& saved = (*progress)[i];
    st.trials[record.request_id] = {record.id, {}, record.state == RunState::error};
    if (saved.ended) continue;
    if (st.record.killed) {
      finish_killing(self, record);
      continue;
    }
    Result<search::Operations> ops = search::Operations();
    if (is_terminal(record.state)) ops = end_trial(*st.search, record.request_id, record.state, false);
    else ops = resume_trial(self, record, saved);
    if (!ops) return fail(ops.error());
    missed.insert(missed.end(), ops->begin(), ops->end());
  }
  if (st.record.killed) {
    carry_out_orders(self);  // the kill is journaled already
    return {};
  }
  apply(self, std::move(missed));
  for (const auto& [request, trial] : st.trials) park_if_waiting(self, request);
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
  if (!recovery) {
    st.search.emplace(std::move(searcher));
    apply(self, st.search->initial_operations());
    checkpoint_search(self);
  } else if (auto recovered = recover(self, std::move(searcher), *recovery); !recovered) {
    spdlog::error("experiment {} cannot continue: {}", st.record.id, recovered.error().message);
    st.record.error_message = recovered.error().message;
    st.unrecoverable = true;
    st.orders.clear();  // no trial was started
    st.trials.clear();  // nothing left to wait for: the experiment ends in ERROR
  }
  finish_if_done(self);
  return {
      [=](validated_atom, std::uint64_t request, double metric, std::uint64_t batches) {
        if (running_trial(self, request) == nullptr) return;
        // A trial resumed from a checkpoint may validate again at batches the searcher saw.
        const std::uint64_t validated = search_of(self).trial(request)->validated;
        if (batches <= validated && validated > 0) return;
        apply(self, search_of(self).validation_completed(request, metric, batches));
        park_if_waiting(self, request);
        checkpoint_search(self);
      },
      [=](checkpointed_atom, std::uint64_t) { collect_garbage(self); },
      [=](journaled_atom, const std::string& error) {
        log_failure(self, fail(Error::io(error)), "journaling the search state");
        search_of(self).journal_lost();
      },
      [=](pause_atom) -> caf::result<bool> {
        const auto& record = self->state.record;
        if (record.killed || record.state != RunState::active) return refusal(self, RunState::active, "paused");
        return set_state(self, RunState::paused, pause_atom::value);
      },
      [=](activate_atom) -> caf::result<bool> {
        const auto& record = self->state.record;
        if (record.killed || record.state != RunState::paused) return refusal(self, RunState::paused, "activated");
        return set_state(self, RunState::active, activate_atom::value);
      },
      [=](kill_atom) -> caf::result<bool> { return kill_experiment(self); },
      [=](journaled_atom, kill_atom, const std::string& error) {
        answer_kills(self, error.empty() ? Status() : fail(Error::io(error)));
      },
      [=](trial_ended_atom, std::uint64_t request, RunState state) {
        auto* trial = running_trial(self, request);
        if (trial == nullptr) return;
        trial->errored = state == RunState::error;
        trial->actor = nullptr;  // it quits after telling us
        forget_resume_point(self, trial->id);
        apply(self, end_trial(search_of(self), request, state, self->state.record.killed));
        if (!self->state.record.killed) checkpoint_search(self);
        finish_if_done(self);
      },
  };
}

}  // namespace volador::actors
