#include "runtime/cli/lifecycle_command_line.hpp"

namespace volador::cli {
namespace {

void add_experiment_verbs(CLI::App& experiment, Invocation& in) {
  auto* remove = experiment.add_subcommand(
      "delete", "delete an ended experiment: its trials, metrics, logs and checkpoints (registered models' stay)");
  remove->add_option("ID", in.id, "the experiment's ID")->required();
  remove->add_flag("-y,--yes", in.yes, "do not ask for confirmation");
  auto* fork = experiment.add_subcommand("fork", "a new experiment from an experiment's stored project and config");
  auto* resume = experiment.add_subcommand(
      "continue", "a new experiment training more an ended one's trials, each from its newest checkpoint");
  for (auto* again : {fork, resume}) {
    again->add_option("ID", in.id, "the experiment")->required();
    again->add_option("--config", in.changes_path,
                      "a YAML file merged over the config (its mappings key by key), e.g. a longer searcher.max_length");
    again->add_flag("--json", in.json, "JSON output");
  }
  auto* model_def = experiment.add_subcommand("download-model-def", "unpack an experiment's project into DIR");
  model_def->add_option("ID", in.id, "the experiment's ID")->required();
  model_def->add_option("DIR", in.dir, "destination folder (missing or empty)")->required();
  auto* set = experiment.add_subcommand("set", "change an experiment's description or labels")->require_subcommand(1);
  auto* description = set->add_subcommand("description", "replace the experiment's description");
  description->add_option("ID", in.id, "the experiment's ID")->required();
  description->add_option("TEXT", in.text, "the new description")->required();
  auto* labels = set->add_subcommand("labels", "replace the experiment's labels (none given: no labels)");
  labels->add_option("ID", in.id, "the experiment's ID")->required();
  labels->add_option("LABELS", in.labels, "the new labels");
}

void add_model_verbs(CLI::App& app, Invocation& in) {
  auto* model = app.add_subcommand("model", "the model registry: checkpoints kept as versions of named models")
                    ->require_subcommand(1);
  auto* create = model->add_subcommand("create", "create model NAME");
  create->add_option("NAME", in.model_name, "the model's name: letters, digits, '_', '.', '-', at most 64")->required();
  create->add_option("--description", in.description, "what the model is");
  create->add_flag("--json", in.json, "JSON output");
  auto* register_version = model->add_subcommand("register", "register a checkpoint as the model's next version");
  register_version->add_option("NAME", in.model_name, "the model's name")->required();
  register_version->add_option("CHECKPOINT_UUID", in.uuid, "the checkpoint")->required();
  register_version->add_flag("--json", in.json, "JSON output");
  model->add_subcommand("list", "every model and its number of versions")->add_flag("--json", in.json, "JSON output");
  auto* describe = model->add_subcommand("describe", "a model and its versions, each with where it came from");
  describe->add_option("NAME", in.model_name, "the model's name")->required();
  describe->add_flag("--json", in.json, "JSON output");
  auto* download = model->add_subcommand("download", "copy a version's checkpoint into DIR, verified");
  download->add_option("NAME", in.model_name, "the model's name")->required();
  download->add_option("DIR", in.dir, "destination folder (missing or empty)")->required();
  download->add_option("--version", in.version, "the version (default: the latest)")->check(CLI::PositiveNumber);
}

}  // namespace

void add_lifecycle_verbs(CLI::App& app, CLI::App& experiment, CLI::App& checkpoint, Invocation& in) {
  add_experiment_verbs(experiment, in);
  auto* remove = checkpoint.add_subcommand(
      "delete", "delete a checkpoint's files (not a registered one, nor where a running trial resumes)");
  remove->add_option("UUID", in.uuid, "checkpoint UUID")->required();
  add_model_verbs(app, in);
}

}  // namespace volador::cli
