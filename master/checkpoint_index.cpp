#include "master/checkpoint_index.hpp"

#include <algorithm>
#include <iterator>
#include <optional>

#include "runtime/core/states.hpp"

namespace volador::master {

CheckpointIndex::CheckpointIndex(checkpoints::GcPolicy policy, std::string metric)
    : policy_(policy), metric_(std::move(metric)), ranking_(BetterFirst{policy.smaller_is_better}) {}

void CheckpointIndex::put_trial(const storage::TrialRecord& record) {
  Trial& trial = trials_[record.id];
  if (is_terminal(record.state)) end_trial(record.id);
  else trial.may_resume = true;
  if (trial.warm_start != record.warm_start && !trial.warm_start.empty()) {
    auto [first, last] = warm_starters_.equal_range(trial.warm_start);
    for (auto it = first; it != last; ++it)
      if (it->second == record.id) {
        warm_starters_.erase(it);
        break;
      }
    to_weigh_.insert(trial.warm_start);  // it may have lost its protection
  }
  if (trial.warm_start != record.warm_start && !record.warm_start.empty())
    warm_starters_.emplace(record.warm_start, record.id);
  trial.warm_start = record.warm_start;
}

void CheckpointIndex::end_trial(std::uint64_t trial_id) {
  Trial& trial = trials_[trial_id];
  if (trial.may_resume) weigh_trial(trial);
  trial.may_resume = false;
}

void CheckpointIndex::put_checkpoint(const storage::CheckpointRecord& record) {
  drop(record.uuid);
  if (record.state != storage::CheckpointState::active) return;
  Trial& trial = trials_[record.trial_id];
  const auto metric = record.validation_metrics.find(metric_);
  checkpoints::GcCandidate candidate{
      .uuid = record.uuid,
      .trial_id = record.trial_id,
      .batches = record.batches,
      .metric = metric == record.validation_metrics.end() ? std::nullopt : std::optional(metric->second)};
  auto& added = trial.checkpoints.insert_or_assign(record.uuid, Checkpoint{record, std::move(candidate)}).first->second;
  trial_of_[record.uuid] = record.trial_id;
  if (checkpoints::is_measured(added.candidate)) ranking_.insert(&added.candidate);
  weigh_trial(trial);
}

void CheckpointIndex::protect(const std::string& uuid) {
  protected_.insert(uuid);
  to_weigh_.erase(uuid);
}

std::vector<storage::CheckpointRecord> CheckpointIndex::garbage() {
  const auto best = experiment_best();
  const std::set<std::string> best_now(best.begin(), best.end());
  std::ranges::set_difference(best_at_last_step_, best_now, std::inserter(to_weigh_, to_weigh_.end()));
  best_at_last_step_ = best_now;
  std::map<std::uint64_t, std::vector<std::string>> weighed_by_trial;
  for (const auto& uuid : to_weigh_)
    if (auto of = trial_of_.find(uuid); of != trial_of_.end()) weighed_by_trial[of->second].push_back(uuid);
  std::vector<storage::CheckpointRecord> doomed;
  std::set<std::string> still_to_weigh;
  for (const auto& [trial_id, uuids] : weighed_by_trial) {
    const Trial& trial = trials_.at(trial_id);
    const auto given_up = trial_garbage(trial);
    for (const auto& uuid : uuids) {
      if (!given_up.contains(uuid) || best_now.contains(uuid) || protected_.contains(uuid)) continue;
      doomed.push_back(trial.checkpoints.at(uuid).record);
      still_to_weigh.insert(uuid);
    }
  }
  to_weigh_ = std::move(still_to_weigh);
  return doomed;
}

std::vector<std::string> CheckpointIndex::experiment_best() const {
  std::vector<std::string> best;
  for (auto it = ranking_.begin(); it != ranking_.end() && best.size() < policy_.save_experiment_best; ++it)
    best.push_back((*it)->uuid);
  return best;
}

void CheckpointIndex::drop(const std::string& uuid) {
  const auto of = trial_of_.find(uuid);
  if (of == trial_of_.end()) return;
  auto& checkpoints = trials_.at(of->second).checkpoints;
  const auto it = checkpoints.find(uuid);
  if (checkpoints::is_measured(it->second.candidate)) ranking_.erase(&it->second.candidate);
  checkpoints.erase(it);
  trial_of_.erase(of);
  to_weigh_.erase(uuid);
}

void CheckpointIndex::weigh_trial(const Trial& trial) {
  for (const auto& [uuid, checkpoint] : trial.checkpoints) to_weigh_.insert(uuid);
  if (!trial.warm_start.empty()) to_weigh_.insert(trial.warm_start);
}

bool CheckpointIndex::warm_start_protected(const std::string& uuid) const {
  auto [first, last] = warm_starters_.equal_range(uuid);
  return std::any_of(first, last, [&](const auto& starter) {
    const Trial& trial = trials_.at(starter.second);
    return trial.may_resume && trial.checkpoints.empty();
  });
}

std::set<std::string> CheckpointIndex::trial_garbage(const Trial& trial) const {
  std::vector<checkpoints::GcCandidate> candidates;
  const checkpoints::GcCandidate* newest = nullptr;
  for (const auto& [uuid, checkpoint] : trial.checkpoints) {  // by uuid: the first of equal batches wins
    if (newest == nullptr || newest->batches < checkpoint.candidate.batches) newest = &checkpoint.candidate;
  }
  for (const auto& [uuid, checkpoint] : trial.checkpoints) {
    candidates.push_back(checkpoint.candidate);
    candidates.back().in_use = (trial.may_resume && newest == &checkpoint.candidate) || warm_start_protected(uuid);
  }
  checkpoints::GcPolicy own_rules = policy_;
  own_rules.save_experiment_best = 0;
  return checkpoints::checkpoints_to_delete(candidates, own_rules);
}

}  // namespace volador::master
