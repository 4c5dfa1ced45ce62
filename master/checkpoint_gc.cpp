#include "master/checkpoint_gc.hpp"

namespace volador::master {
namespace {

// Drops from `index` those of the experiment's best that were deleted
// meanwhile (by a user, or as unusable at a resume). Errors: the journal's.
Status refresh_experiment_best(const storage::Journal& journal, CheckpointIndex& index) {
  for (const auto& uuid : index.experiment_best()) {
    auto record = journal.checkpoint(uuid);
    if (!record) return fail(record.error());
    if (record->state != storage::CheckpointState::active) index.put_checkpoint(*record);
  }
  return {};
}

// Deletes `checkpoint` unless a model version registers it (then `index`
// spares it from now on); whether it was deleted.
Result<bool> delete_unless_registered(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                      CheckpointIndex& index, storage::CheckpointRecord checkpoint) {
  auto registered = journal.is_registered(checkpoint.uuid);
  if (!registered) return fail(registered.error());
  if (*registered) {
    index.protect(checkpoint.uuid);
    return false;
  }
  if (auto removed = store.remove(checkpoint.uuid); !removed) return fail(removed.error());
  checkpoint.state = storage::CheckpointState::deleted;
  if (auto marked = journal.put_checkpoint(checkpoint); !marked) return fail(marked.error());
  index.put_checkpoint(checkpoint);
  return true;
}

}  // namespace

Result<CheckpointIndex> load_checkpoint_index(const storage::Journal& journal, std::uint64_t experiment_id,
                                              const config::ExperimentConfig& config) {
  auto trials = journal.trials(experiment_id);
  if (!trials) return fail(trials.error());
  auto checkpoints = journal.checkpoints_of_experiment(experiment_id);
  if (!checkpoints) return fail(checkpoints.error());
  CheckpointIndex index(checkpoints::GcPolicy::of(config), config.searcher.metric);
  for (const auto& trial : *trials) index.put_trial(trial);
  for (const auto& checkpoint : *checkpoints) index.put_checkpoint(checkpoint);
  return index;
}

Status refresh_trial(const storage::Journal& journal, CheckpointIndex& index, std::uint64_t trial_id) {
  auto trial = journal.trial(trial_id);
  if (!trial && trial.error().code != ErrorCode::not_found) return fail(trial.error());
  auto checkpoints = journal.checkpoints_of_trial(trial_id);
  if (!checkpoints) return fail(checkpoints.error());
  if (trial) index.put_trial(*trial);  // without a record, none of its checkpoints is a resume point
  index.put_trial_checkpoints(trial_id, *checkpoints);
  return {};
}

Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               CheckpointIndex& index, std::uint64_t trial_id) {
  if (auto refreshed = refresh_trial(journal, index, trial_id); !refreshed) return fail(refreshed.error());
  if (auto best = refresh_experiment_best(journal, index); !best) return fail(best.error());
  for (std::uint64_t weighed : index.trials_to_weigh())
    if (weighed != trial_id)
      if (auto refreshed = refresh_trial(journal, index, weighed); !refreshed) return fail(refreshed.error());
  std::size_t deleted = 0;
  for (auto& checkpoint : index.garbage()) {
    auto gone = delete_unless_registered(journal, store, index, std::move(checkpoint));
    if (!gone) return fail(gone.error());
    deleted += *gone ? 1 : 0;
  }
  return deleted;
}

}  // namespace volador::master
