#include "runtime/config/cross_field_rules.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <variant>

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

void check_records_per_epoch(Diagnostics& diag, const ExperimentConfig& config) {
  if (present(diag, "records_per_epoch") || diag.misspelled("records_per_epoch")) return;
  const std::array<std::pair<std::string, std::optional<Length>>, 3> lengths{{
      {"searcher.max_length", config.searcher.max_length},
      {"min_validation_period", config.min_validation_period},
      {"min_checkpoint_period", config.min_checkpoint_period},
  }};
  for (const auto& [field, length] : lengths) {
    if (length && length->unit == LengthUnit::epochs && present(diag, field)) {
      diag.report(diag.where(field), "records_per_epoch",
                  "missing; required because " + field + " is in epochs");
      return;
    }
  }
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
  check_pair(diag, "workspace", "project");
  check_pair(diag, "project", "workspace");
  check_space(diag, config.searcher.name, config.hyperparameters, "hyperparameters");
}

}  // namespace volador::config
