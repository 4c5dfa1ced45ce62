#include "master/lifecycle_requests.hpp"

#include <fmt/format.h>

#include <set>

#include "master/checkpoint_deletion.hpp"
#include "master/experiment_continuation.hpp"
#include "master/experiment_store.hpp"
#include "master/users/ownership.hpp"
#include "runtime/config/config_merge.hpp"
#include "runtime/config/config_parser.hpp"

namespace volador::master {
namespace {

// The experiment's description and labels now: the user's, else its config's.
Result<storage::ExperimentMetadataRecord> current_metadata(const storage::Journal& journal,
                                                           const storage::ExperimentRecord& experiment) {
  auto stored = journal.experiment_metadata(experiment.id);
  if (!stored) return fail(stored.error());
  if (*stored) return **stored;
  auto parsed = config::parse_experiment_config(experiment.config_yaml, experiment.config_file_name);
  const auto* cfg = std::get_if<config::ExperimentConfig>(&parsed);
  if (cfg == nullptr) return fail(Error::corruption(fmt::format("experiment {}: its journaled config no longer parses", experiment.id)));
  return storage::ExperimentMetadataRecord{.experiment_id = experiment.id,
                                           .description = cfg->description,
                                           .labels = cfg->labels.get<std::vector<std::string>>()};
}

Status check_labels(const std::vector<std::string>& labels) {
  std::set<std::string> seen;
  for (const auto& label : labels) {
    if (label.empty()) return fail(Error::invalid_argument("a label cannot be empty"));
    if (!seen.insert(label).second) return fail(Error::invalid_argument("label '" + label + "' is given twice"));
  }
  return {};
}

// Experiment `id` when `user` may `what` it.
Result<storage::ExperimentRecord> changeable(const storage::Journal& journal, const User& user, std::uint64_t id,
                                             std::string_view what) {
  auto experiment = live_experiment(journal, id);
  if (!experiment) return fail(experiment.error());
  if (auto allowed = check_may_change(user, *experiment, what); !allowed) return fail(allowed.error());
  return experiment;
}

}  // namespace

Result<storage::ExperimentRecord> live_experiment(const storage::Journal& journal, std::uint64_t id) {
  auto experiment = journal.experiment(id);
  if (!experiment) return fail(experiment.error());
  if (experiment->deleting) return fail(Error::not_found(fmt::format("experiment {} is being deleted", id)));
  return experiment;
}

Result<DeletionReport> delete_experiment_for(storage::Journal& journal, const std::filesystem::path& data_dir,
                                             const User& user, std::uint64_t id, bool running) {
  auto experiment = journal.experiment(id);  // one being deleted may be deleted again: that finishes it
  if (!experiment) return fail(experiment.error());
  if (auto allowed = check_may_change(user, *experiment, "delete"); !allowed) return fail(allowed.error());
  if (auto refused = deletion_refusal(*experiment, running)) return fail(*refused);
  auto needed = needed_by_continuation(journal, id);
  if (!needed) return fail(needed.error());
  if (*needed) return fail(**needed);
  if (auto marked = mark_for_deletion(journal, *experiment); !marked) return fail(marked.error());
  return finish_deletion(journal, data_dir, id);
}

Status set_experiment_metadata(storage::Journal& journal, const User& user, const wire::ExperimentMetadataChange& change,
                               std::int64_t now_ms) {
  auto experiment = changeable(journal, user, change.experiment_id, "change the description or labels of");
  if (!experiment) return fail(experiment.error());
  auto metadata = current_metadata(journal, *experiment);
  if (!metadata) return fail(metadata.error());
  if (change.description) metadata->description = *change.description;
  if (change.set_labels) {
    if (auto valid = check_labels(change.labels); !valid) return valid;
    metadata->labels = change.labels;
  }
  metadata->changed_at_ms = now_ms;
  metadata->changed_by = user.name;
  return journal.put_experiment_metadata(*metadata);
}

Status delete_checkpoint_for(storage::Journal& journal, const std::filesystem::path& data_dir, const User& user,
                             std::string_view uuid) {
  auto checkpoint = journal.checkpoint(uuid);
  if (!checkpoint) return fail(checkpoint.error());
  auto experiment = changeable(journal, user, checkpoint->experiment_id, "delete a checkpoint of");
  if (!experiment) return fail(experiment.error());
  auto trial = journal.trial(checkpoint->trial_id);
  auto of_trial = journal.checkpoints_of_trial(checkpoint->trial_id);
  auto versions = journal.model_versions("");
  if (!trial) return fail(trial.error());
  if (!of_trial) return fail(of_trial.error());
  if (!versions) return fail(versions.error());
  if (auto refused = checkpoint_deletion_refusal(*checkpoint, *trial, *of_trial, *versions)) return fail(*refused);
  auto needed = needed_by_continuation(journal, checkpoint->experiment_id, checkpoint->uuid);
  if (!needed) return fail(needed.error());
  if (*needed) return fail(**needed);
  return delete_checkpoint(journal, data_dir, std::move(*checkpoint));
}

Result<wire::ModelDefinition> model_definition(const storage::Journal& journal, std::uint64_t id) {
  if (auto experiment = live_experiment(journal, id); !experiment) return fail(experiment.error());
  auto archive = journal.archive(id);
  if (!archive) return fail(archive.error());
  return wire::ModelDefinition{.experiment_id = id, .archive = std::move(*archive)};
}

Result<ForkSubmission> fork_submission(const storage::Journal& journal, const wire::ForkExperimentRequest& request) {
  auto experiment = live_experiment(journal, request.experiment_id);
  if (!experiment) return fail(experiment.error());
  auto archive = journal.archive(request.experiment_id);
  if (!archive) return fail(archive.error());
  const std::string original_name = fmt::format("experiment {}'s {}", experiment->id, experiment->config_file_name);
  const std::string changes_name = request.changes_file_name.empty() ? original_name : request.changes_file_name;
  auto merged = config::merge_config_changes({experiment->config_yaml, original_name}, {request.changes_yaml, changes_name});
  ForkSubmission out;
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&merged)) {
    for (const auto& e : *errors) out.errors.push_back(e.to_string());
    return out;
  }
  out.request = {.config_yaml = std::move(std::get<config::MergedConfig>(merged).yaml),
                 .config_file_name = changes_name,
                 .archive = std::move(*archive)};
  return out;
}

Result<ForkSubmission> continue_submission(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                           const wire::ForkExperimentRequest& request) {
  if (auto plan = continuation_plan(journal, request.experiment_id); !plan) return fail(plan.error());
  auto submission = fork_submission(journal, request);
  if (!submission || !submission->errors.empty()) return submission;
  auto source = journal.experiment(request.experiment_id);
  if (!source) return fail(source.error());
  auto parsed = config::parse_experiment_config(submission->request.config_yaml, submission->request.config_file_name);
  auto old_store = experiment_store(*source, data_dir);
  auto new_store = experiment_store(std::get<config::ExperimentConfig>(parsed), data_dir);
  if (!old_store) return fail(old_store.error());
  if (!new_store) return fail(new_store.error());
  if ((*old_store)->root() != (*new_store)->root())
    submission->errors.push_back(fmt::format(
        "{}: checkpoint_storage: a continuation keeps experiment {}'s checkpoint storage ({}): its trials start from "
        "checkpoints there",
        submission->request.config_file_name, request.experiment_id, (*old_store)->root().string()));
  submission->request.continue_from = request.experiment_id;
  return submission;
}

}  // namespace volador::master
