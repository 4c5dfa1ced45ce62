#include "runtime/config/config_parser.hpp"

#include <algorithm>
#include <array>
#include <exception>

#include <yaml-cpp/yaml.h>

#include "runtime/config/checkpoint_storage.hpp"
#include "runtime/config/container.hpp"
#include "runtime/config/cross_field_rules.hpp"
#include "runtime/config/diagnostics.hpp"
#include "runtime/config/document.hpp"
#include "runtime/config/field_readers.hpp"
#include "runtime/config/hyperparameters.hpp"
#include "runtime/config/length.hpp"
#include "runtime/config/metrics_collector.hpp"
#include "runtime/config/resources.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/searcher.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 22> kTopLevelKeys{
    "name",         "description",       "labels",
    "data",         "workspace",         "project",
    "entrypoint",   "hyperparameters",   "searcher",
    "metrics_collector",
    "records_per_epoch", "scheduling_unit", "min_validation_period",
    "min_checkpoint_period", "checkpoint_policy", "perform_initial_validation",
    "max_restarts", "checkpoint_storage", "resources",
    "bind_mounts",  "environment",       "experiment_seed"};

// In the order of CheckpointPolicy's enumerators.
constexpr std::array<std::string_view, 3> kCheckpointPolicies{"best", "all", "none"};

constexpr ReadUnsigned<std::uint32_t> read_seed{0, 0x7fff'ffff};

std::optional<CheckpointPolicy> read_checkpoint_policy(Diagnostics& diag, const YAML::Node& node,
                                                       const std::string& field) {
  auto word = ReadChoice{kCheckpointPolicies}(diag, node, field);
  if (!word) return std::nullopt;
  return static_cast<CheckpointPolicy>(std::ranges::find(kCheckpointPolicies, *word) - kCheckpointPolicies.begin());
}

std::optional<nlohmann::json> read_data(Diagnostics& diag, const YAML::Node& node,
                                        const std::string& field) {
  if (node.IsMap()) return to_json(node);
  diag.report(node, field, "expected a map, got " + describe(node));
  return std::nullopt;
}

// The entrypoint, classified; one that does not split into a command is
// reported at its place.
std::optional<Entrypoint> read_entrypoint(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto text = read_nonempty_string(diag, node, field);
  if (!text) return std::nullopt;
  auto kind = command::classify_entrypoint(*text);
  if (!kind) {
    diag.report(node, field, kind.error().message);
    return std::nullopt;
  }
  return Entrypoint{std::move(*text), std::move(*kind)};
}

void read_identity(const Section& top, ExperimentConfig& config) {
  top.read_required("name", config.name, read_nonempty_string);
  top.read("description", config.description, read_string);
  top.read("labels", config.labels, ReadList{read_string});
  top.read("data", config.data, read_data);
  top.read("workspace", config.workspace, read_nonempty_string);
  top.read("project", config.project, read_nonempty_string);
  top.read_required("entrypoint", config.entrypoint, read_entrypoint);
}

void read_hyperparameter_section(const Section& top, ExperimentConfig& config) {
  auto node = top.require("hyperparameters");
  if (!node) return;
  Diagnostics& diag = top.diagnostics();
  config.hyperparameters = read_hyperparameters(diag, *node, "hyperparameters");
  // A command is handed its hyperparameters and batches its data itself: it
  // needs no global_batch_size unless its lengths are in records or epochs
  // (cross_field_rules.hpp).
  const bool command = std::holds_alternative<command::CommandEntrypoint>(config.entrypoint.kind);
  if (command && !config.hyperparameters.contains("global_batch_size")) return;
  auto batch_size = read_global_batch_size(diag, config.hyperparameters, *node, "hyperparameters");
  if (batch_size) config.global_batch_size = *batch_size;
}

void read_training(const Section& top, ExperimentConfig& config) {
  top.read_required("searcher", config.searcher, read_searcher);
  top.read("metrics_collector", config.metrics_collector, read_metrics_collector);
  top.read("records_per_epoch", config.records_per_epoch, read_positive_u64);
  top.read("scheduling_unit", config.scheduling_unit, read_positive_u64);
  top.read("min_validation_period", config.min_validation_period, read_length);
  top.read("min_checkpoint_period", config.min_checkpoint_period, read_length);
  top.read("checkpoint_policy", config.checkpoint_policy, read_checkpoint_policy);
  top.read("perform_initial_validation", config.perform_initial_validation, read_bool);
  top.read("max_restarts", config.max_restarts, read_count_u32);
  top.read("experiment_seed", config.experiment_seed, read_seed);
}

// The manual lists experiment_seed under environment as well as at the top
// level: either place sets the one seed, both places is an error.
void read_environment_seed(const Section& top, ExperimentConfig& config) {
  const auto environment = top.get("environment");
  const auto seed = environment ? Section::peek(*environment, "experiment_seed") : std::nullopt;
  if (!seed) return;
  Diagnostics& diag = top.diagnostics();
  const std::string field = "environment.experiment_seed";
  if (config.experiment_seed) {
    const YAML::Mark top_level = diag.where("experiment_seed");
    diag.report(*seed, field,
                "experiment_seed is also set at the top level (line " + std::to_string(top_level.line + 1) +
                    ", column " + std::to_string(top_level.column + 1) + "); keep one");
    return;
  }
  config.experiment_seed = read_seed(diag, *seed, field);
}

void read_placement(const Section& top, ExperimentConfig& config) {
  top.read("checkpoint_storage", config.checkpoint_storage, read_checkpoint_storage);
  top.read("resources", config.resources, read_resources);
  top.read("bind_mounts", config.bind_mounts, ReadList{read_bind_mount});
  top.read("environment", config.environment, read_environment);
  read_environment_seed(top, config);
}

ExperimentConfig read_experiment(Diagnostics& diag, const YAML::Node& root) {
  ExperimentConfig config;
  const Section top(diag, root, "", kTopLevelKeys);
  read_identity(top, config);
  read_hyperparameter_section(top, config);
  read_training(top, config);
  read_placement(top, config);
  return config;
}

}  // namespace

std::span<const std::string_view> top_level_keys() { return kTopLevelKeys; }

std::string ConfigError::to_string() const {
  std::string out = file + ":";
  if (line > 0) out += std::to_string(line) + ":" + std::to_string(column) + ":";
  out += " ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}

std::string format_errors(const std::vector<ConfigError>& errors) {
  std::string out;
  for (const auto& error : errors) out += error.to_string() + "\n";
  return out;
}

ParseOutcome parse_experiment_config(std::string_view yaml_text, std::string_view file_name) {
  Diagnostics diag{std::string(file_name)};
  try {
    auto root = load_document(diag, yaml_text);
    if (root && check_document(diag, *root)) {
      ExperimentConfig config = read_experiment(diag, *root);
      check_cross_field_rules(diag, config);
      if (!diag.has_errors()) return config;
    }
  } catch (const YAML::Exception& e) {
    diag.report(e.mark, "", e.msg);
  } catch (const std::exception& e) {
    diag.report_document("", std::string("internal error while reading the config: ") + e.what());
  }
  return diag.take_sorted();
}

}  // namespace volador::config
