// The trial's journal, its ending, restarting and pausing, and its workers' events.
#include "actors/trial_internal.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/trial_resume.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors::trial_internal {
namespace {

// After a rank stopped on request: paused (slots freed) or completed.
void on_rank_stopped(Self self) {
  auto& st = self->state;
  if (!st.pause_requested) return end_trial(self, RunState::completed, "");
  forget_run(self);
  st.phase = Phase::paused;
  st.restore_uuid.clear();
  st.spec.record.state = RunState::paused;
  save_record(self);
  system_log(self, fmt::format("paused after {} batches", st.progress.batches_trained));
}

bool run_is_live(Phase phase) { return phase == Phase::launching || phase == Phase::running || phase == Phase::stopping; }

}  // namespace

const storage::TrialRecord& record(Self self) { return self->state.spec.record; }

void journal_status(Self self, const Status& status, const char* what) {
  if (!status) spdlog::error("trial {}: journaling {} failed: {}", record(self).id, what, status.error().message);
}

void system_log(Self self, const std::string& text) {
  storage::LogLine line{record(self).id, 0, now_ms(), "system", text};
  auto r = self->state.context.journal->append_logs(line.trial_id, {line});
  if (!r) spdlog::error("trial {}: journaling a log line failed: {}", line.trial_id, r.error().message);
}

void save_record(Self self) { journal_status(self, self->state.context.journal->put_trial(record(self)), "its record"); }

void forget_run(Self self) {
  auto& st = self->state;
  for (const auto& agent : st.agents) {
    self->demonitor(agent);
    self->send(agent, kill_atom::value, record(self).id);
  }
  st.agents.clear();
  st.agent_ids.clear();
  st.ranks.clear();
  st.workload_in_flight = false;
  st.spec.record.run_agents.clear();  // no live run: a restarted master will not look for one
  st.spec.record.run_token.clear();
  self->send(st.context.pool, release_atom::value, record(self).id);
}

void end_trial(Self self, RunState state, const std::string& why) {
  auto& st = self->state;
  if (st.phase == Phase::ended) return;
  forget_run(self);
  st.phase = Phase::ended;
  st.spec.record.state = state;
  st.spec.record.error_message = why;
  st.spec.record.ended_at_ms = now_ms();
  save_record(self);
  if (!why.empty()) system_log(self, why);
  self->send(st.context.gateway, detach_atom::value, record(self).id);
  self->send(st.experiment, trial_ended_atom::value, record(self).request_id, std::string(to_string(state)));
  self->quit();
}

void request_slots(Self self) {
  auto& st = self->state;
  st.phase = Phase::waiting_for_slots;
  self->send(st.context.pool, request_slots_atom::value, record(self).id, st.spec.config->resources.slots_per_trial,
             caf::actor_cast<caf::actor>(self));
}

bool is_new_best(TrialState& st, const MetricMap& validation) {
  const auto& searcher = st.spec.config->searcher;
  auto it = validation.find(searcher.metric);
  if (it == validation.end()) return false;
  const double value = it->second;
  const bool better = !st.best_metric || (searcher.smaller_is_better ? value < *st.best_metric : value > *st.best_metric);
  if (better) st.best_metric = value;
  return better;
}

bool rewind_to_resume_point(Self self) {
  auto& st = self->state;
  auto point = prepare_resume(*st.context.journal, *st.spec.store, record(self).id);
  if (!point) {
    end_trial(self, RunState::error, "cannot find where to resume: " + point.error().message);
    return false;
  }
  for (const auto& note : point->notes) system_log(self, note);
  st.progress = point->progress;
  st.last_validation = std::move(point->last_validation);
  st.best_metric.reset();
  for (const auto& validation : point->validations) is_new_best(st, validation);
  st.restore_uuid = point->checkpoint ? point->checkpoint->uuid : "";
  st.newest_checkpoint_at = point->checkpoint_at();
  st.spec.record.batches_trained = st.progress.batches_trained;
  // The validation at the resume point may not have reached the searcher
  // before a master crash; the experiment ignores it if it had.
  if (auto it = st.last_validation.find(st.spec.config->searcher.metric); it != st.last_validation.end())
    self->send(st.experiment, validated_atom::value, record(self).request_id, it->second,
               static_cast<std::uint64_t>(st.progress.last_validation_at));
  return true;
}

void restart(Self self, const std::string& why, bool counts_as_restart) {
  auto& st = self->state;
  const auto max_restarts = st.spec.config->max_restarts;
  if (counts_as_restart && record(self).restarts >= max_restarts)
    return end_trial(self, RunState::error, why + (max_restarts > 0 ? " (max_restarts reached)" : ""));
  forget_run(self);
  if (counts_as_restart) st.spec.record.restarts += 1;
  if (!rewind_to_resume_point(self)) return;
  const auto counted = counts_as_restart ? fmt::format("restart {} of {}", record(self).restarts, max_restarts)
                                         : std::string("not counted as a restart");
  system_log(self, fmt::format("{}; restarting ({}) from {}", why, counted,
                               st.restore_uuid.empty() ? "the beginning" : "checkpoint " + st.restore_uuid));
  save_record(self);
  if (st.pause_requested) {
    st.phase = Phase::paused;
    return;
  }
  request_slots(self);
}

void mark_run_live(Self self) {
  auto& st = self->state;
  if (!st.spec.record.run_agents.empty()) return;
  st.spec.record.run_token = st.token;
  st.spec.record.run_agents = st.agent_ids;
  save_record(self);
}

bool expects_report(const TrialState& st, Phase phase, const RankIdentity& who) {
  return st.phase == phase && who.run_id == st.spec.record.run_id && who.token == st.token &&
         who.rank < st.ranks.size() && !st.ranks[who.rank].hello;
}

bool admit_rank(Self self, Phase phase, const RankIdentity& who, caf::actor worker, caf::response_promise& promise) {
  auto& st = self->state;
  if (!expects_report(st, phase, who)) {
    promise.deliver(to_caf_error(Error::invalid_argument(fmt::format(
        "rank {} of trial {} run {} is not expected (a stale run, a bad token or a second report)", who.rank,
        record(self).id, who.run_id))));
    return false;
  }
  auto& rank = st.ranks[who.rank];
  rank.worker = std::move(worker);
  rank.hello = promise;
  return true;
}

void on_worker_exit(Self self, const wire::Bytes& bytes) {
  auto exit = wire::decode<wire::WorkerExit>(bytes);
  auto& st = self->state;
  if (!exit || exit->run_id != record(self).run_id || !run_is_live(st.phase) || exit->rank >= st.ranks.size()) return;
  if (st.phase == Phase::stopping && exit->exit_code == 0) {
    st.ranks[exit->rank].stopped = true;
    if (std::ranges::all_of(st.ranks, &RankSlot::stopped)) on_rank_stopped(self);
    return;
  }
  const auto who = st.ranks.size() > 1 ? fmt::format("rank {} worker", exit->rank) : std::string("rank worker");
  std::string why = exit->signal != 0 ? fmt::format("{} was killed by signal {}", who, exit->signal)
                                      : fmt::format("{} exited with code {}", who, exit->exit_code);
  if (!exit->message.empty()) why += ": " + exit->message;
  restart(self, why, true);
}

void on_logs(Self self, const wire::Bytes& bytes) {
  auto logs = wire::decode<wire::LogLines>(bytes);
  if (!logs || logs->run_id != record(self).run_id) return;
  std::vector<storage::LogLine> lines;
  for (auto& entry : logs->lines)
    lines.push_back({logs->trial_id, 0, entry.time_ms, std::move(entry.stream), std::move(entry.text)});
  auto r = self->state.context.journal->append_logs(logs->trial_id, std::move(lines));
  if (!r) spdlog::error("trial {}: journaling logs failed: {}", logs->trial_id, r.error().message);
}

void on_pause(Self self) {
  auto& st = self->state;
  st.pause_requested = true;
  switch (st.phase) {
    case Phase::idle:
    case Phase::waiting_for_slots:
      self->send(st.context.pool, release_atom::value, record(self).id);
      st.phase = Phase::paused;
      st.spec.record.state = RunState::paused;
      save_record(self);
      return;
    default:
      drive(self);  // a running trial checkpoints, then stops; launching ones do once running
  }
}

void on_activate(Self self) {
  auto& st = self->state;
  st.pause_requested = false;
  if (st.phase != Phase::paused) return;
  st.spec.record.state = RunState::active;
  save_record(self);
  if (!rewind_to_resume_point(self)) return;
  if (st.target_batches > 0) request_slots(self);
  else st.phase = Phase::idle;
}

}  // namespace volador::actors::trial_internal
