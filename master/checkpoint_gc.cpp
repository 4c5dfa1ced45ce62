#include "master/checkpoint_gc.hpp"

#include <map>
#include <vector>

#include "storage/checkpoints/gc_policy.hpp"

namespace volador::master {
namespace {

// The newest active checkpoint of every trial that may still resume, or,
// for one with none of its own yet, the checkpoint it starts from (a pbt
// trial's parent's, which that parent may have outtrained since).
Result<std::set<std::string>> resume_points(const storage::Journal& journal, std::uint64_t experiment_id,
                                            const std::vector<storage::CheckpointRecord>& active) {
  auto trials = journal.trials(experiment_id);
  if (!trials) return fail(trials.error());
  std::map<std::uint64_t, const storage::CheckpointRecord*> newest;
  for (const auto& c : active)
    if (!newest[c.trial_id] || newest[c.trial_id]->batches < c.batches) newest[c.trial_id] = &c;
  std::set<std::string> in_use;
  for (const auto& t : *trials) {
    if (is_terminal(t.state)) continue;
    if (newest[t.id]) in_use.insert(newest[t.id]->uuid);
    else if (!t.warm_start.empty()) in_use.insert(t.warm_start);
  }
  return in_use;
}

}  // namespace

Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               std::uint64_t experiment_id, const config::ExperimentConfig& config) {
  auto all = journal.checkpoints_of_experiment(experiment_id);
  if (!all) return fail(all.error());
  std::vector<storage::CheckpointRecord> active;
  for (auto& c : *all)
    if (c.state == storage::CheckpointState::active) active.push_back(std::move(c));
  auto in_use = resume_points(journal, experiment_id, active);
  if (!in_use) return fail(in_use.error());
  auto registered = journal.registered_checkpoints();
  if (!registered) return fail(registered.error());
  in_use->insert(registered->begin(), registered->end());

  std::vector<checkpoints::GcCandidate> candidates;
  for (const auto& c : active) {
    auto metric = c.validation_metrics.find(config.searcher.metric);
    candidates.push_back({c.uuid, c.trial_id, c.batches,
                          metric == c.validation_metrics.end() ? std::nullopt : std::optional(metric->second),
                          in_use->contains(c.uuid)});
  }
  const auto doomed = checkpoints::checkpoints_to_delete(candidates, checkpoints::GcPolicy::of(config));
  std::size_t deleted = 0;
  for (auto c : active) {
    if (!doomed.contains(c.uuid)) continue;
    if (auto removed = store.remove(c.uuid); !removed) return fail(removed.error());
    c.state = storage::CheckpointState::deleted;
    if (auto marked = journal.put_checkpoint(c); !marked) return fail(marked.error());
    ++deleted;
  }
  return deleted;
}

}  // namespace volador::master
