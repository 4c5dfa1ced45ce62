#include "master/checkpoint_gc.hpp"

namespace volador::master {
namespace {

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

Result<FedCheckpointIndex> load_checkpoint_index(storage::Journal& journal, std::uint64_t experiment_id,
                                                 const config::ExperimentConfig& config, std::function<void()> on_fed) {
  // First: what is written meanwhile is read or fed.
  auto feed = journal.follow_checkpoints(experiment_id, std::move(on_fed));
  auto trials = journal.trials(experiment_id);
  if (!trials) return fail(trials.error());
  auto checkpoints = journal.checkpoints_of_experiment(experiment_id);
  if (!checkpoints) return fail(checkpoints.error());
  FedCheckpointIndex loaded{CheckpointIndex(checkpoints::GcPolicy::of(config), config.searcher.metric),
                            std::move(feed)};
  for (const auto& trial : *trials) loaded.index.put_trial(trial);
  for (const auto& checkpoint : *checkpoints) loaded.index.put_checkpoint(checkpoint);
  return loaded;
}

Result<std::size_t> collect_checkpoint_garbage(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                               FedCheckpointIndex& checkpoints) {
  for (const auto& record : checkpoints.feed->take()) checkpoints.index.put_checkpoint(record);
  std::size_t deleted = 0;
  for (auto& checkpoint : checkpoints.index.garbage()) {
    auto gone = delete_unless_registered(journal, store, checkpoints.index, std::move(checkpoint));
    if (!gone) return fail(gone.error());
    deleted += *gone ? 1 : 0;
  }
  return deleted;
}

}  // namespace volador::master
