// Taking a live run back after a master restart (see trial_run.hpp).
#include <fmt/format.h>

#include "master/trial_resume.hpp"
#include "master/trial_run.hpp"

namespace volador::master {
namespace {

// Whether the journal already holds what `workload` reported.
bool journaled(const training::Progress& progress, const training::Workload& workload,
               const wire::WorkloadResult& result) {
  switch (workload.kind) {
    case training::WorkloadKind::train: return result.batches_trained == progress.batches_trained;
    case training::WorkloadKind::validate:
      return progress.last_validation_at == static_cast<std::int64_t>(workload.start_batch);
    default: return true;  // a checkpoint not registered is simply taken again
  }
}

}  // namespace

// A recovered trial whose run was live: claim its workers, wait for its ranks.
void TrialRun::begin_reattach() {
  const auto& r = setup_.spec.record;
  phase_ = Phase::reattaching;
  token_ = r.run_token;
  ranks_.resize(setup_.spec.config->resources.slots_per_trial);
  std::string agents;
  for (const auto& agent : r.run_agents) agents += (agents.empty() ? "" : ", ") + agent;
  system_log(fmt::format("the master restarted; waiting for run {} on {} to report back", r.run_id, agents));
  effects_.emplace_back(AdoptRun{r.run_id, r.run_agents, setup_.spec.config->resources.slots_per_trial});
  effects_.emplace_back(StartReattachTimer{r.run_id, setup_.timings.reattach_grace});
}

void TrialRun::handle(const RunAdopted& event) {
  if (phase_ != Phase::reattaching || event.run_id != setup_.spec.record.run_id) return;
  for (const auto& share : event.agents) agent_ids_.push_back(share.agent_id);
  effects_.emplace_back(WatchAgents{agent_ids_});
  finish_reattach();
}

void TrialRun::handle(const AdoptFailed& event) {
  if (phase_ != Phase::reattaching || event.run_id != setup_.spec.record.run_id) return;
  give_up_reattach(fmt::format("run {} cannot be taken back: {}", event.run_id, event.message));
}

void TrialRun::handle(const ReattachTimedOut& event) {
  if (phase_ != Phase::reattaching || event.run_id != setup_.spec.record.run_id) return;
  give_up_reattach(fmt::format("run {} did not report back within {} s of the master restart", event.run_id,
                               std::chrono::duration_cast<std::chrono::seconds>(setup_.timings.reattach_grace).count()));
}

void TrialRun::handle(const RankRejoined& event) {
  const auto& rejoin = event.rejoin;
  if (!admit_rank(Phase::reattaching, rejoin.run_id, rejoin.rank, rejoin.token)) return;
  ranks_[rejoin.rank].last = rejoin.last;
  finish_reattach();
}

// Gives the run up: its rejoined ranks are told, and the trial restarts (uncounted).
void TrialRun::give_up_reattach(const std::string& why) {
  effects_.emplace_back(AnswerRejoins{false, "the trial gave this run up: " + why});
  restart(why, false);
}

// Once the pool gave the run's agents back and every rank rejoined: the run goes on.
void TrialRun::finish_reattach() {
  if (agent_ids_.empty() || !std::ranges::all_of(ranks_, &Rank::reported)) return;
  phase_ = Phase::running;
  for (auto& rank : ranks_) rank.reported = false;
  effects_.emplace_back(AnswerRejoins{true, ""});
  effects_.emplace_back(ClaimWorkers{setup_.spec.record.run_id});
  if (!catch_up_with_ranks()) return;
  save_record();
  system_log(fmt::format("run {} reattached after a master restart, at batch {}", setup_.spec.record.run_id,
                         progress_.batches_trained));
  drive();
}

// Progress, validations and best metric as the journal has them now.
bool TrialRun::take_journal_standing() {
  auto point = standing_point(*setup_.journal, setup_.spec.record.id, setup_.spec.record.batches_trained);
  if (!point) {
    give_up_reattach("cannot read the trial's journal: " + point.error().message);
    return false;
  }
  progress_ = point->progress;
  newest_checkpoint_at_ = point->checkpoint_at();
  last_validation_ = std::move(point->last_validation);
  best_metric_.reset();
  bool last_was_best = false;
  for (const auto& validation : point->validations) last_was_best = is_new_best(validation);
  progress_.last_validation_was_best = last_was_best;
  restore_uuid_ = point->checkpoint ? point->checkpoint->uuid : "";
  return true;
}

// Brings the journal up to rank 0's last finished workload, whose answer
// the old master may not have journaled. False when the trial stopped here.
bool TrialRun::catch_up_with_ranks() {
  if (!take_journal_standing()) return false;
  const auto& last = ranks_.front().last;
  if (!last) return true;
  const auto workload = as_workload(last->request);
  if (journaled(progress_, workload, last->result)) return true;
  if (workload.start_batch != progress_.batches_trained) {
    give_up_reattach(fmt::format("the ranks stand at batch {}, the journal at {}", workload.start_batch,
                                 progress_.batches_trained));
    return false;
  }
  return complete_workload(workload, last->result);
}

}  // namespace volador::master
