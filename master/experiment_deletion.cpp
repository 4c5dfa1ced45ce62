#include "master/experiment_deletion.hpp"

#include <fmt/format.h>

#include "master/experiment_store.hpp"
#include "runtime/core/states.hpp"

namespace volador::master {

std::optional<Error> deletion_refusal(const storage::ExperimentRecord& record, bool running) {
  if (record.deleting) return std::nullopt;  // resumed
  if (!is_terminal(record.state))
    return Error::invalid_argument(fmt::format(
        "experiment {} is {}: only an ended experiment can be deleted (kill it first: volador experiment kill {})",
        record.id, to_string(record.state), record.id));
  if (running)
    return Error::invalid_argument(
        fmt::format("experiment {} is still stopping its trials: delete it once they have ended", record.id));
  return std::nullopt;
}

DeletionPlan plan_deletion(const std::vector<storage::CheckpointRecord>& checkpoints,
                           const std::set<std::string>& registered) {
  DeletionPlan plan;
  for (const auto& c : checkpoints) (registered.contains(c.uuid) ? plan.keep : plan.remove).push_back(c.uuid);
  return plan;
}

Status mark_for_deletion(storage::Journal& journal, storage::ExperimentRecord record) {
  if (record.deleting) return {};
  record.deleting = true;
  return journal.put_experiment(record);
}

Result<DeletionReport> finish_deletion(storage::Journal& journal, const std::filesystem::path& data_dir,
                                       std::uint64_t id) {
  auto experiment = journal.experiment(id);
  if (!experiment) return fail(experiment.error());
  if (!experiment->deleting)
    return fail(Error::invalid_argument(fmt::format("experiment {} is not marked for deletion", id)));
  auto checkpoints = journal.checkpoints_of_experiment(id);
  auto registered = journal.registered_checkpoints();
  if (!checkpoints) return fail(checkpoints.error());
  if (!registered) return fail(registered.error());
  const auto plan = plan_deletion(*checkpoints, *registered);
  if (!plan.remove.empty()) {
    auto store = experiment_store(*experiment, data_dir);
    if (!store) return fail(store.error());
    for (const auto& uuid : plan.remove)
      if (auto removed = (*store)->remove(uuid); !removed) return fail(removed.error());
  }
  if (auto erased = journal.delete_experiment(id); !erased) return fail(erased.error());
  return DeletionReport{.checkpoints_removed = plan.remove.size(), .checkpoints_kept = plan.keep.size()};
}

std::vector<Error> finish_pending_deletions(storage::Journal& journal, const std::filesystem::path& data_dir) {
  auto experiments = journal.experiments();
  if (!experiments) return {experiments.error()};
  std::vector<Error> errors;
  for (const auto& e : *experiments) {
    if (!e.deleting) continue;
    if (auto finished = finish_deletion(journal, data_dir, e.id); !finished)
      errors.push_back(Error{finished.error().code, fmt::format("experiment {}: {}", e.id, finished.error().message)});
  }
  return errors;
}

}  // namespace volador::master
