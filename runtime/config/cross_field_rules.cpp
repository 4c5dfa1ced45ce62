#include "runtime/config/cross_field_rules.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "runtime/command/entrypoint.hpp"
#include "runtime/command/hparam_passing.hpp"

namespace volador::config {
namespace {

bool present(const Diagnostics& diag, const std::string& field) {
  return !diag.where(field).is_null();
}

void check_batch_division(Diagnostics& diag, const ExperimentConfig& config) {
  const std::uint64_t slots = config.resources.slots_per_trial;
  if (config.global_batch_size == 0 || slots == 0 || config.global_batch_size % slots == 0) return;
  const std::string field = "hyperparameters.global_batch_size";
  diag.report(diag.where(field), field,
              std::to_string(config.global_batch_size) + " does not divide by resources.slots_per_trial (" +
                  std::to_string(slots) + ")");
}

// The config's training lengths, by field.
std::array<std::pair<std::string, std::optional<Length>>, 4> named_lengths(const ExperimentConfig& config) {
  return {{
      {"searcher.max_length", config.searcher.max_length},
      {"searcher.length_per_round", config.searcher.pbt.length_per_round},
      {"min_validation_period", config.min_validation_period},
      {"min_checkpoint_period", config.min_checkpoint_period},
  }};
}

void check_records_per_epoch(Diagnostics& diag, const ExperimentConfig& config) {
  if (present(diag, "records_per_epoch") || diag.misspelled("records_per_epoch")) return;
  for (const auto& [field, length] : named_lengths(config)) {
    if (length && length->unit == LengthUnit::epochs && present(diag, field)) {
      diag.report(diag.where(field), "records_per_epoch",
                  "missing; required because " + field + " is in epochs");
      return;
    }
  }
}

__extension__ using Wide = unsigned __int128;  // GCC's, to multiply two 64-bit counts

// Batches in `length`, computed without overflow (nullopt: epochs without records_per_epoch).
std::optional<Wide> exact_batches(const Length& length, const ExperimentConfig& config) {
  const Wide value = length.value, batch = std::max<std::uint64_t>(config.global_batch_size, 1);
  switch (length.unit) {
    case LengthUnit::batches: return value;
    case LengthUnit::records: return value / batch;
    case LengthUnit::epochs:
      if (!config.records_per_epoch) return std::nullopt;
      return value * *config.records_per_epoch / batch;
  }
  return std::nullopt;
}

void check_length_sizes(Diagnostics& diag, const ExperimentConfig& config) {
  for (const auto& [field, length] : named_lengths(config)) {
    if (!length || !present(diag, field)) continue;
    const auto batches = exact_batches(*length, config);
    if (batches && *batches > kMaxTrainingBatches)
      diag.report(diag.where(field), field,
                  "more than " + std::to_string(kMaxTrainingBatches) +
                      " batches (2^53), the most a trial can train; expected a shorter length");
  }
}

// pbt: a round trains at least one batch (rounds end at distinct lengths),
// all rounds together no more than a trial can train, and the trials are
// ones the master drives round by round: a command runs to completion by
// itself (a longer target does not run it again), so it could neither train
// on after a round nor be warm-started mid-way.
void check_pbt(Diagnostics& diag, const ExperimentConfig& config) {
  if (config.searcher.name != "pbt") return;
  const std::string round = "searcher.length_per_round";
  const auto per_round = exact_batches(config.searcher.pbt.length_per_round, config);
  if (present(diag, round) && config.searcher.pbt.length_per_round.value > 0 && per_round && *per_round == 0)
    diag.report(diag.where(round), round,
                "shorter than one batch of " + std::to_string(config.global_batch_size) +
                    " records; expected at least one batch per round");
  const auto total = exact_batches(config.searcher.max_length, config);
  if (present(diag, "searcher.num_rounds") && per_round && *per_round > 0 && total && *total > kMaxTrainingBatches)
    diag.report(diag.where("searcher.num_rounds"), "searcher.num_rounds",
                "num_rounds x length_per_round is more than " + std::to_string(kMaxTrainingBatches) +
                    " batches (2^53), the most a trial can train; expected fewer or shorter rounds");
  if (std::holds_alternative<command::CommandEntrypoint>(config.entrypoint.kind))
    diag.report(diag.where("searcher.name"), "searcher.name",
                "pbt trains each trial round by round and starts new ones from others' checkpoints, which a command "
                "entrypoint cannot do (it runs to completion by itself); write a Python or native trial");
}

// The workload plan's fields mean nothing to a command, which runs to
// completion by itself, reports when it likes and checkpoints when it calls
// volador.reporting.checkpoint() and at its exit: refused, not ignored.
void check_command_fields(Diagnostics& diag, const ExperimentConfig& config) {
  if (!std::holds_alternative<command::CommandEntrypoint>(config.entrypoint.kind)) return;
  for (const std::string field : {"scheduling_unit", "min_validation_period", "min_checkpoint_period", "checkpoint_policy",
                                  "perform_initial_validation"})
    if (present(diag, field))
      diag.report(diag.where(field), field,
                  "has no effect on a command entrypoint, which runs to completion by itself, reports when it likes "
                  "and saves its checkpoint folder when it calls volador.reporting.checkpoint() and when it exits; "
                  "remove it (or write a Python or native trial)");
}

// The names of every leaf of `space`, dotted, for an error message.
std::string leaf_names(const hparams::Space& space) {
  std::string names;
  hparams::for_each_leaf(space, [&](const std::vector<std::string>& path, const hparams::Hyperparameter&) {
    std::string name;
    for (const auto& key : path) name = join_path(name, key);
    names += (names.empty() ? "" : ", ") + name;
  });
  return names;
}

// Whether dotted `name` is a leaf of `space` (not a nested map).
bool names_leaf(const hparams::Space& space, const std::string& name) {
  const hparams::Space* level = &space;
  for (std::size_t start = 0;;) {
    const std::size_t dot = name.find('.', start);
    auto it = level->find(name.substr(start, dot - start));
    if (it == level->end()) return false;
    const auto* nested = std::get_if<hparams::Space>(&it->second.param);
    if (dot == std::string::npos) return nested == nullptr || nested->empty();
    if (nested == nullptr) return false;
    level = nested;
    start = dot + 1;
  }
}

// A command's ${hparams.NAME} placeholders must each name a hyperparameter;
// without a global_batch_size its lengths must be in batches.
void check_command_hyperparameters(Diagnostics& diag, const ExperimentConfig& config) {
  const auto* command = std::get_if<command::CommandEntrypoint>(&config.entrypoint.kind);
  if (command == nullptr) return;
  auto names = command::placeholder_names(command->argv);
  if (!names) diag.report(diag.where("entrypoint"), "entrypoint", names.error().message);
  for (const auto& name : names ? *names : std::vector<std::string>{})
    if (!names_leaf(config.hyperparameters, name))
      diag.report(diag.where("entrypoint"), "entrypoint",
                  "${hparams." + name + "} names no hyperparameter; defined: " + leaf_names(config.hyperparameters));
  if (config.hyperparameters.contains("global_batch_size")) return;
  for (const auto& [field, length] : named_lengths(config))
    if (length && length->unit != LengthUnit::batches && present(diag, field)) {
      diag.report(diag.where(field), "hyperparameters.global_batch_size",
                  "missing; required because " + field + " is not in batches");
      return;
    }
}

// A trial class reports its metrics through the trial API; the stdout
// pattern would never be read.
void check_metrics_collector(Diagnostics& diag, const ExperimentConfig& config) {
  const std::string field = "metrics_collector";
  if (std::holds_alternative<command::CommandEntrypoint>(config.entrypoint.kind) || !present(diag, field)) return;
  diag.report(diag.where(field), field,
              "applies only to a command entrypoint, whose metrics are read from its output; a Python or native "
              "trial reports its metrics through the trial API: remove it");
}

void check_pair(Diagnostics& diag, const std::string& field, const std::string& partner) {
  if (present(diag, field) && !present(diag, partner) && !diag.misspelled(partner)) {
    diag.report(diag.where(field), partner, "missing; " + field + " and " + partner + " come together");
  }
}

bool has_grid_count(const hparams::Hyperparameter& leaf) {
  return std::visit(
      [](const auto& param) {
        if constexpr (requires { param.count; }) return param.count.has_value();
        return true;
      },
      leaf.param);
}

void check_leaf(Diagnostics& diag, const std::string& searcher, const std::string& field,
                const hparams::Hyperparameter& leaf) {
  if (searcher == "single" && !std::holds_alternative<hparams::ConstParam>(leaf.param)) {
    diag.report(diag.where(field), field, "the single searcher needs a constant here");
  } else if (searcher == "grid" && !has_grid_count(leaf)) {
    diag.report(diag.where(field), field, "the grid searcher needs a count here");
  }
}

void check_space(Diagnostics& diag, const std::string& searcher, const hparams::Space& space,
                 const std::string& path) {
  for (const auto& [name, entry] : space) {
    const std::string field = join_path(path, name);
    if (const auto* nested = std::get_if<hparams::Space>(&entry.param)) {
      check_space(diag, searcher, *nested, field);
    } else {
      check_leaf(diag, searcher, field, entry);
    }
  }
}

}  // namespace

void check_cross_field_rules(Diagnostics& diag, const ExperimentConfig& config) {
  check_batch_division(diag, config);
  check_records_per_epoch(diag, config);
  check_length_sizes(diag, config);
  check_pbt(diag, config);
  check_command_fields(diag, config);
  check_command_hyperparameters(diag, config);
  check_metrics_collector(diag, config);
  check_pair(diag, "workspace", "project");
  check_pair(diag, "project", "workspace");
  check_space(diag, config.searcher.name, config.hyperparameters, "hyperparameters");
}

}  // namespace volador::config
