// Taking a live run back after a master restart, and a rank of a running run
// back after its own link to the master dropped (see trial_run.hpp).
#include <fmt/format.h>

#include "master/trial_resume.hpp"
#include "master/trial_run.hpp"

namespace volador::master {
namespace {

// Whether the journal already holds what `workload` reported (the journal
// holds a run's answers in the order they came).
bool journaled(const training::Progress& progress, const training::Workload& workload,
               const wire::WorkloadResult& result) {
  switch (workload.kind) {
    case training::WorkloadKind::train: return result.batches_trained <= progress.batches_trained;
    case training::WorkloadKind::validate:
      return progress.last_validation_at >= static_cast<std::int64_t>(workload.start_batch);
    default: return true;  // a checkpoint not registered is simply taken again
  }
}

// A rejoining rank's finished workloads, oldest first, each chain's steps
// one by one (those it ran).
std::vector<wire::FinishedWorkload> finished_workloads(const wire::RankRejoin& rejoin) {
  auto whole = rejoin.earlier;
  if (rejoin.last) whole.push_back(*rejoin.last);
  std::vector<wire::FinishedWorkload> steps;
  for (auto& finished : whole) {
    auto chain = std::exchange(finished.request.then, {});
    auto results = std::exchange(finished.result.then, {});
    steps.push_back(std::move(finished));
    for (std::size_t k = 0; k < chain.size() && k < results.size(); ++k)
      steps.push_back({.request = std::move(chain[k]), .result = std::move(results[k])});
  }
  return steps;
}

const char* kind_name(training::WorkloadKind kind) {
  switch (kind) {
    case training::WorkloadKind::train: return "training";
    case training::WorkloadKind::validate: return "validation";
    case training::WorkloadKind::checkpoint: return "checkpoint";
    case training::WorkloadKind::done: return "nothing";
  }
  return "workload";
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
  if (phase_ == Phase::running || phase_ == Phase::stopping)
    return relink_rank(rejoin.run_id, rejoin.rank, rejoin.token, rejoin.last, false);
  if (!admit_rank(Phase::reattaching, rejoin.run_id, rejoin.rank, rejoin.token)) return;
  ranks_[rejoin.rank].finished = finished_workloads(rejoin);
  ranks_[rejoin.rank].runs_chains = rejoin.runs_chains;
  finish_reattach();
}

// A rank of the running (or stopping) run whose link dropped while the master
// ran on, back with a rejoin, or with a `hello` when the group never reached
// it: its new handle is taken and it is answered. It gets the workload in
// flight again unless the last workload it finished is that one, whose
// answer counts (unless it follows a report batch the trial lacks); a
// stopping run tells it again to stop. Each link may drop many times.
void TrialRun::relink_rank(std::uint32_t run_id, std::uint32_t rank, const std::string& token,
                           const std::optional<wire::FinishedWorkload>& last, bool hello) {
  if (hello && !group_) {  // a reattached run: its ranks had their group before the master restarted
    effects_.emplace_back(
        RefuseRank{fmt::format("run {} started before the master restarted: it takes rejoins, not hellos", run_id)});
    return;
  }
  if (!admit_rank(phase_, run_id, rank, token)) return;
  ranks_[rank].reported = false;
  if (hello) effects_.emplace_back(AnswerHellos{*group_});
  else effects_.emplace_back(AnswerRejoins{true, ""});
  system_log(fmt::format("rank {} of run {} reconnected to the master", rank, run_id));
  if (phase_ == Phase::stopping) {
    effects_.emplace_back(ShutdownRanks{});
    return;
  }
  if (!in_flight_ || rank >= in_flight_->results.size() || in_flight_->results[rank]) return;
  // An answer after a report batch lost with the link is asked for again:
  // the rank sends its unacknowledged batches first, then answers.
  auto share = share_of_rank(in_flight_->request, rank);
  if (last && last->request == share && answer_follows_reports(rank, last->result))
    return handle(WorkloadAnswered{in_flight_->number, rank, last->result});
  effects_.emplace_back(ResendWorkload{in_flight_->number, std::move(share), rank});
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
  flush_journal();
  auto point = standing_point(*setup_.journal, setup_.spec.record.id, setup_.spec.record.batches_trained,
                              setup_.spec.record.warm_start);
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

// Brings the journal up to rank 0's finished workloads, whose answers the
// old master may not have journaled: it sends a workload before its write of
// the previous answer lands, so a rank can be several workloads past the
// journal. Each one the journal lacks must be the one its standing plans
// next; otherwise (the rank kept too few, or a checkpoint between them was
// never registered) the run is given up and restarts from its checkpoint.
// False when the trial stopped here.
bool TrialRun::catch_up_with_ranks() {
  if (!take_journal_standing()) return false;
  for (const auto& finished : ranks_.front().finished) {
    const auto workload = as_workload(finished.request);
    if (journaled(progress_, workload, finished.result)) continue;
    const auto planned = training::next_workload(policy_, progress_, workload.start_batch + workload.batches);
    if (workload.start_batch != progress_.batches_trained || workload.kind != planned.kind) {
      give_up_reattach(fmt::format("the ranks finished a {} from batch {}, the journal stands at batch {} before a {}",
                                   kind_name(workload.kind), workload.start_batch, progress_.batches_trained,
                                   kind_name(planned.kind)));
      return false;
    }
    if (!complete_workload(workload, finished.result)) return false;
  }
  return true;
}

}  // namespace volador::master
