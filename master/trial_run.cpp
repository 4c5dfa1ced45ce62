// The trial's events, its journal, ending, restarting and pausing.
#include "master/trial_run.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "master/trial_resume.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/search/searcher.hpp"

namespace volador::master {
namespace {

bool is_command(const config::ExperimentConfig& config) {
  return std::holds_alternative<command::CommandEntrypoint>(config.entrypoint.kind);
}

}  // namespace

std::string metric_names(const MetricMap& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

TrialRun::TrialRun(TrialSetup setup)
    : setup_(std::move(setup)),
      command_(is_command(*setup_.spec.config)),
      policy_(training::make_schedule_policy(*setup_.spec.config)),
      max_length_batches_(search::max_length_in_batches(*setup_.spec.config).value_or(0)) {
  pause_requested_ = setup_.spec.record.state == RunState::paused;
  if (pause_requested_) phase_ = Phase::paused;
}

TrialEffects TrialRun::start() {
  effects_.clear();
  const auto& r = setup_.spec.record;
  if (r.state == RunState::active && !r.run_agents.empty()) {
    if (!command_) {
      begin_reattach();
    } else {
      forget_run();
      save_record();
    }
  }
  flush_journal();
  return std::exchange(effects_, {});
}

TrialEffects TrialRun::on(TrialEvent event) {
  effects_.clear();
  std::visit([this](const auto& e) { handle(e); }, event);
  flush_journal();
  return std::exchange(effects_, {});
}

void TrialRun::handle(const TrainTo& event) {
  target_batches_ = event.batches;
  park_requested_ = false;
  if (phase_ == Phase::idle && command_ && command_run_.finished) return report_command_at_target();
  if (phase_ == Phase::idle && rewind_to_resume_point() && has_work()) request_slots();
  drive();
}

void TrialRun::handle(const Close&) {
  close_requested_ = true;
  if (std::exchange(preempted_for_, std::nullopt)) pause_requested_ = false;  // it completes instead
  if (phase_ == Phase::idle || phase_ == Phase::waiting_for_slots || phase_ == Phase::paused)
    return end_trial(RunState::completed, "");
  drive();
}

void TrialRun::handle(const Pause&) {
  preempted_for_.reset();  // the user's pause wins: the trial stays paused
  pause_requested_ = true;
  switch (phase_) {
    case Phase::idle:
    case Phase::waiting_for_slots:
      effects_.emplace_back(ReleaseSlots{});
      phase_ = Phase::paused;
      setup_.spec.record.state = RunState::paused;
      save_record();
      return;
    default:
      drive();  // a running trial checkpoints, then stops; launching ones do once running
  }
}

void TrialRun::handle(const Activate&) {
  pause_requested_ = false;
  if (phase_ != Phase::paused) return;
  setup_.spec.record.state = RunState::active;
  save_record();
  if (!rewind_to_resume_point()) return;
  if (has_work()) request_slots();
  else phase_ = Phase::idle;
}

void TrialRun::handle(const Kill&) { end_trial(RunState::canceled, "killed by the user"); }

void TrialRun::handle(const WorkerExited& event) {
  const auto& exit = event.exit;
  if (exit.run_id != setup_.spec.record.run_id || !run_is_live() || exit.rank >= ranks_.size()) return;
  if (phase_ == Phase::stopping && exit.exit_code == 0) {
    ranks_[exit.rank].stopped = true;
    if (std::ranges::all_of(ranks_, &Rank::stopped)) on_rank_stopped();
    return;
  }
  const auto who = ranks_.size() > 1 ? fmt::format("rank {} worker", exit.rank) : std::string("rank worker");
  std::string why = exit.signal != 0 ? fmt::format("{} was killed by signal {}", who, exit.signal)
                                     : fmt::format("{} exited with code {}", who, exit.exit_code);
  if (!exit.message.empty()) why += ": " + exit.message;
  restart(why, true);
}

void TrialRun::handle(const AgentLost& event) {
  if (std::ranges::find(agent_ids_, event.agent_id) != agent_ids_.end())
    restart("lost an agent running this trial", false);
}

std::function<void(const Status&)> TrialRun::log_if_failed(const char* what) const {
  return [trial = setup_.spec.record.id, what](const Status& status) {
    if (!status) spdlog::error("trial {}: journaling {} failed: {}", trial, what, status.error().message);
  };
}

void TrialRun::system_log(const std::string& text) {
  const std::uint64_t trial_id = setup_.spec.record.id;
  journal_writes_.append_logs(trial_id, {{trial_id, 0, setup_.clock(), "system", text}});
}

void TrialRun::save_record() { record_changed_ = true; }

void TrialRun::flush_journal() {
  if (std::exchange(record_changed_, false)) journal_writes_.put_trial(setup_.spec.record);
  if (journal_writes_.empty()) return;
  setup_.journal->commit_async(std::make_shared<storage::JournalBatch>(std::exchange(journal_writes_, {})),
                               log_if_failed("the trial's record, reports and log lines"));
}

void TrialRun::forget_run() {
  drop_command_staging();
  drop_launched_plan();
  const bool ranks_exited = !ranks_.empty() && std::ranges::all_of(ranks_, &Rank::stopped);
  effects_.emplace_back(ForgetRun{.ranks_exited = ranks_exited});
  agent_ids_.clear();
  ranks_.clear();
  group_.reset();
  in_flight_.reset();
  setup_.spec.record.run_agents.clear();  // no live run: a restarted master will not look for one
  setup_.spec.record.run_token.clear();
  if (!std::exchange(slots_given_back_, false)) effects_.emplace_back(ReleaseSlots{});
}

void TrialRun::end_trial(RunState state, const std::string& why) {
  if (phase_ == Phase::ended) return;
  forget_run();
  record_end(state, why);
}

void TrialRun::record_end(RunState state, const std::string& why) {
  phase_ = Phase::ended;
  setup_.spec.record.state = state;
  setup_.spec.record.error_message = why;
  setup_.spec.record.ended_at_ms = setup_.clock();
  save_record();
  if (!why.empty()) system_log(why);
  effects_.emplace_back(ReportEnded{setup_.spec.record.request_id, state});
}

void TrialRun::request_slots() {
  phase_ = Phase::waiting_for_slots;
  effects_.emplace_back(RequestSlots{setup_.spec.config->resources.slots_per_trial});
}

bool TrialRun::is_new_best(const MetricMap& validation) {
  const auto& searcher = setup_.spec.config->searcher;
  auto it = validation.find(searcher.metric);
  if (it == validation.end()) return false;
  const double value = it->second;
  const bool better = !best_metric_ || (searcher.smaller_is_better ? value < *best_metric_ : value > *best_metric_);
  if (better) best_metric_ = value;
  return better;
}

bool TrialRun::rewind_to_resume_point() {
  flush_journal();
  const auto& r = setup_.spec.record;
  // A trial that never ran (its first run's number comes with its grant and
  // is journaled before any report) and continues no other trial starts from
  // the beginning: nothing to look for, nothing to remove.
  auto point = r.run_id == 0 && r.warm_start.empty()
                   ? Result<ResumePoint>(ResumePoint{})
                   : prepare_resume(*setup_.journal, *setup_.spec.store, r.id, r.warm_start);
  if (!point) {
    end_trial(RunState::error, "cannot find where to resume: " + point.error().message);
    return false;
  }
  for (const auto& note : point->notes) system_log(note);
  progress_ = point->progress;
  last_validation_ = std::move(point->last_validation);
  best_metric_.reset();
  for (const auto& validation : point->validations) is_new_best(validation);
  restore_uuid_ = point->checkpoint ? point->checkpoint->uuid : "";
  newest_checkpoint_at_ = point->checkpoint_at();
  setup_.spec.record.batches_trained = progress_.batches_trained;
  // The validation at the resume point may not have reached the searcher
  // before a master crash; the experiment ignores it if it had.
  report_last_validation();
  return true;
}

void TrialRun::report_last_validation() {
  if (auto it = last_validation_.find(setup_.spec.config->searcher.metric); it != last_validation_.end())
    effects_.emplace_back(ReportValidation{setup_.spec.record.request_id, it->second,
                                           static_cast<std::uint64_t>(progress_.last_validation_at)});
}

void TrialRun::restart(const std::string& why, bool counts_as_restart) {
  const auto max_restarts = setup_.spec.config->max_restarts;
  if (counts_as_restart && setup_.spec.record.restarts >= max_restarts)
    return end_trial(RunState::error, why + (max_restarts > 0 ? " (max_restarts reached)" : ""));
  forget_run();
  if (counts_as_restart) setup_.spec.record.restarts += 1;
  if (!rewind_to_resume_point()) return;
  if (close_requested_) {
    system_log(fmt::format("{}; the trial was closed meanwhile: it completes at batch {}", why,
                           progress_.batches_trained));
    return record_end(RunState::completed, "");
  }
  const auto counted = counts_as_restart ? fmt::format("restart {} of {}", setup_.spec.record.restarts, max_restarts)
                                         : std::string("not counted as a restart");
  system_log(fmt::format("{}; restarting ({}) from {}", why, counted,
                         restore_uuid_.empty() ? "the beginning" : "checkpoint " + restore_uuid_));
  save_record();
  if (std::exchange(preempted_for_, std::nullopt)) pause_requested_ = false;  // its slots are free already
  if (pause_requested_) {
    phase_ = Phase::paused;
    return;
  }
  if (has_work()) request_slots();
  else phase_ = Phase::idle;
}

// After the ranks stopped on request: paused (slots freed), completed, or
// (a command that ran to completion) waiting for the searcher.
void TrialRun::on_rank_stopped() {
  if (preempted_for_) return finish_preemption();
  if (std::exchange(parking_, false) && !pause_requested_ && !close_requested_) return finish_parking();
  if (await_search_after_command()) return;
  if (!pause_requested_) return end_trial(RunState::completed, "");
  forget_run();
  phase_ = Phase::paused;
  restore_uuid_.clear();
  setup_.spec.record.state = RunState::paused;
  save_record();
  system_log(fmt::format("paused after {} batches", progress_.batches_trained));
}

bool TrialRun::run_is_live() const {
  return phase_ == Phase::launching || phase_ == Phase::running || phase_ == Phase::stopping;
}

bool TrialRun::is_current_rank(std::uint32_t run_id, std::uint32_t rank, const std::string& token) const {
  return run_id == setup_.spec.record.run_id && token == token_ && rank < ranks_.size();
}

bool TrialRun::expects_report(Phase phase, std::uint32_t run_id, std::uint32_t rank, const std::string& token) const {
  return phase_ == phase && is_current_rank(run_id, rank, token) && !ranks_[rank].reported;
}

bool TrialRun::admit_rank(Phase phase, std::uint32_t run_id, std::uint32_t rank, const std::string& token) {
  if (!expects_report(phase, run_id, rank, token)) {
    effects_.emplace_back(RefuseRank{fmt::format(
        "rank {} of trial {} run {} is not expected (a stale run, a bad token or a second report)", rank,
        setup_.spec.record.id, run_id)});
    return false;
  }
  ranks_[rank].reported = true;
  effects_.emplace_back(AdmitRank{rank});
  return true;
}

}  // namespace volador::master
