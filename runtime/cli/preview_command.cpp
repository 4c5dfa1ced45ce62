#include "runtime/cli/preview_command.hpp"

#include <fmt/format.h>

#include <iostream>

#include <nlohmann/json.hpp>

#include "runtime/cli/config_file.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/search/preview.hpp"

namespace volador::cli {
namespace {

// `batches` also in the unit max_length was given in, e.g. "250 batches (2.5 epochs)".
std::string length_text(std::uint64_t batches, const config::ExperimentConfig& config) {
  const auto unit = config.searcher.max_length.unit;
  if (unit == config::LengthUnit::batches) return fmt::format("{} batches", batches);
  const double records = static_cast<double>(batches) * static_cast<double>(config.global_batch_size);
  if (unit == config::LengthUnit::records) return fmt::format("{} batches ({:g} records)", batches, records);
  return fmt::format("{} batches ({:.3g} epochs)", batches, records / static_cast<double>(*config.records_per_epoch));
}

std::string joined(const std::vector<std::uint64_t>& values) {
  std::string out;
  for (auto v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void print_text(const search::SearchPreview& p, const config::ExperimentConfig& config, std::uint32_t seed) {
  const auto& s = config.searcher;
  std::cout << p.searcher;
  if (p.searcher == "adaptive_asha") std::cout << " (mode " << s.mode << ", divisor " << s.divisor << ")";
  if (p.searcher == "pbt")
    std::cout << fmt::format(" (population {}, {} rounds, truncate_fraction {:g})", s.pbt.population_size,
                             s.pbt.num_rounds, s.pbt.truncate_fraction);
  std::cout << ", max_length " << length_text(p.max_length_batches, config) << ", experiment seed " << seed << "\n";
  if (!p.brackets.empty()) std::cout << "brackets (rung lengths in batches):\n";
  for (std::size_t i = 0; i < p.brackets.size(); ++i)
    std::cout << fmt::format("  {}: {} trials, rungs at {}\n", i + 1, p.brackets[i].trials, joined(p.brackets[i].rungs));
  if (p.validations.size() > 1) std::cout << "trials validate at " << joined(p.validations) << " batches\n";
  if (p.warm_started > 0)
    std::cout << p.warm_started << " of the trials start from a better trial's checkpoint and train on from its length\n";
  if (p.searcher == "tpe" || p.searcher == "bayesian")
    std::cout << "(simulated as random search: the schedule does not depend on the model)\n";
  std::cout << "simulated with a random metric per trial:\n";
  std::cout << fmt::format("  {:>8}  {:>12}  {:>13}\n", "trials", "trained to", "stopped early");
  for (const auto& row : p.by_length)
    std::cout << fmt::format("  {:>8}  {:>12}  {:>13}\n", row.trials, row.batches, row.stopped_early);
  const double full = static_cast<double>(p.trials) * static_cast<double>(p.max_length_batches);
  std::cout << fmt::format("{} trials, at most {} at once; {} in all ({:.1f}% of training every trial fully)\n",
                           p.trials, p.max_concurrent_trials, length_text(p.total_batches, config),
                           full > 0 ? 100.0 * static_cast<double>(p.total_batches) / full : 0.0);
  if (!p.not_simulated.empty()) {
    std::string keys;
    for (std::size_t i = 0; i < p.not_simulated.size(); ++i)
      keys += (i == 0 ? "" : i + 1 == p.not_simulated.size() ? " and " : ", ") + p.not_simulated[i];
    const bool one = p.not_simulated.size() == 1;
    std::cout << "note: " << keys << (one ? " is not simulated (it depends" : " are not simulated (they depend")
              << " on real metrics): the real run may stop sooner\n";
  }
}

}  // namespace

int preview_search(const std::string& config_path, bool json) {
  auto yaml = read_config_file(config_path);
  if (!yaml) {
    std::cerr << "error: " << yaml.error().message << "\n";
    return 1;
  }
  auto parsed = config::parse_experiment_config(*yaml, config_path);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&parsed)) {
    std::cerr << config::format_errors(*errors);
    return 1;
  }
  const auto& config = std::get<config::ExperimentConfig>(parsed);
  const std::uint32_t seed = config.experiment_seed.value_or(0);
  auto preview = search::preview_search(config, seed);
  if (!preview) {
    std::cerr << "error: " << preview.error().message << "\n";
    return 1;
  }
  if (json) std::cout << search::preview_json(*preview, seed).dump(2) << "\n";
  else print_text(*preview, config, seed);
  return 0;
}

}  // namespace volador::cli
