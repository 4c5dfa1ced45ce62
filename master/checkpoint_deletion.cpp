#include "master/checkpoint_deletion.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "master/experiment_store.hpp"
#include "runtime/core/states.hpp"

namespace volador::master {

std::optional<Error> checkpoint_deletion_refusal(const storage::CheckpointRecord& checkpoint,
                                                 const storage::TrialRecord& trial,
                                                 const std::vector<storage::CheckpointRecord>& of_trial,
                                                 const std::vector<storage::ModelVersionRecord>& versions) {
  auto registered = std::ranges::find(versions, checkpoint.uuid, &storage::ModelVersionRecord::checkpoint_uuid);
  if (registered != versions.end())
    return Error::invalid_argument(fmt::format(
        "checkpoint {} is version {} of model '{}': a registered checkpoint is never deleted", checkpoint.uuid,
        registered->version, registered->model_name));
  if (is_terminal(trial.state) || checkpoint.state != storage::CheckpointState::active) return std::nullopt;
  const bool newer_exists = std::ranges::any_of(of_trial, [&](const storage::CheckpointRecord& c) {
    return c.state == storage::CheckpointState::active && c.batches > checkpoint.batches;
  });
  if (newer_exists) return std::nullopt;
  return Error::invalid_argument(fmt::format(
      "checkpoint {} is where trial {} ({}) resumes: delete it once the trial has ended", checkpoint.uuid, trial.id,
      to_string(trial.state)));
}

Status delete_checkpoint(storage::Journal& journal, const std::filesystem::path& data_dir,
                         storage::CheckpointRecord checkpoint) {
  if (checkpoint.state == storage::CheckpointState::deleted) return {};
  auto experiment = journal.experiment(checkpoint.experiment_id);
  if (!experiment) return fail(experiment.error());
  auto store = experiment_store(*experiment, data_dir);
  if (!store) return fail(store.error());
  if (auto removed = (*store)->remove(checkpoint.uuid); !removed) return fail(removed.error());
  checkpoint.state = storage::CheckpointState::deleted;
  return journal.put_checkpoint(checkpoint);
}

}  // namespace volador::master
