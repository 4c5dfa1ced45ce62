#include "runtime/config/searcher.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/length.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 8> kNames{"single", "grid",     "random", "adaptive_asha",
                                                 "adaptive", "tpe", "bayesian", "pbt"};
constexpr std::array<std::string_view, 3> kModes{"aggressive", "standard", "conservative"};
constexpr std::array<std::string_view, 2> kStoppingRules{"median", "median_stop"};
constexpr std::array<std::string_view, 4> kStoppingKeys{"rule", "min_trials", "start_step", "num_steps"};

constexpr std::array<std::string_view, 4> kSingleKeys{"name", "metric", "smaller_is_better", "max_length"};
constexpr std::array<std::string_view, 8> kGridKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials"};
constexpr std::array<std::string_view, 9> kRandomKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials", "max_trials"};
constexpr std::array<std::string_view, 15> kTpeKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials", "early_stopping", "goal",
    "max_failed_trials", "max_trials", "n_startup_trials", "gamma", "n_ei_candidates", "prior_weight",
    "multivariate", "bandwidth_factor"};
constexpr std::array<std::string_view, 12> kBayesianKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials", "early_stopping", "goal",
    "max_failed_trials", "max_trials", "n_initial_points", "xi", "n_candidates"};
constexpr std::array<std::string_view, 12> kAshaKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials", "max_trials", "mode", "divisor", "max_rungs"};
// Determined's pbt keys: no max_length (trials train num_rounds rounds of length_per_round).
constexpr std::array<std::string_view, 8> kPbtKeys{
    "name", "metric", "smaller_is_better", "population_size", "num_rounds", "length_per_round", "replace_function",
    "explore_function"};
constexpr std::array<std::string_view, 1> kReplaceFunctionKeys{"truncate_fraction"};
constexpr std::array<std::string_view, 2> kExploreFunctionKeys{"resample_probability", "perturb_factor"};
constexpr std::array<std::string_view, 26> kAllKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials", "early_stopping", "goal",
    "max_failed_trials", "max_trials", "mode", "divisor", "max_rungs", "n_startup_trials", "gamma",
    "n_ei_candidates", "prior_weight", "multivariate", "bandwidth_factor", "n_initial_points", "xi", "n_candidates",
    "population_size", "num_rounds", "length_per_round", "replace_function", "explore_function"};

// Keys of a searcher by name; unknown or absent names know every key.
Keys keys_of(std::string_view name) {
  if (name == "single") return kSingleKeys;
  if (name == "grid") return kGridKeys;
  if (name == "random") return kRandomKeys;
  if (name == "tpe") return kTpeKeys;
  if (name == "bayesian") return kBayesianKeys;
  if (name == "adaptive_asha") return kAshaKeys;
  if (name == "pbt") return kPbtKeys;
  return kAllKeys;
}

bool needs_max_trials(std::string_view name) {
  return name == "random" || name == "adaptive_asha" || name == "tpe" || name == "bayesian";
}

std::string read_name(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto name_node = Section::peek(node, "name");
  if (!name_node) return "";
  auto name = ReadChoice{kNames}(diag, *name_node, join_path(field, "name"));
  if (!name) return "";
  return *name == "adaptive" ? "adaptive_asha" : *name;
}

std::string format_number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// A number in [lo, hi] (lo excluded when `open_lo`).
struct ReadRange {
  double lo = -std::numeric_limits<double>::max();
  double hi = std::numeric_limits<double>::max();
  bool open_lo = false;
  std::optional<double> operator()(Diagnostics& diag, const YAML::Node& node, const std::string& field) const {
    auto value = read_number(diag, node, field);
    if (!value || ((open_lo ? *value > lo : *value >= lo) && *value <= hi)) return value;
    diag.report(node, field,
                "expected a number " +
                    (hi == std::numeric_limits<double>::max()
                         ? std::string(open_lo ? "above " : "of at least ") + format_number(lo)
                         : "in " + std::string(open_lo ? "(" : "[") + format_number(lo) + ", " + format_number(hi) + "]") +
                    ", got " + describe(node));
    return std::nullopt;
  }
};

// `median`, or a map {rule: median, min_trials, start_step, num_steps}; as JSON.
std::optional<nlohmann::json> read_early_stopping(Diagnostics& diag, const YAML::Node& node,
                                                  const std::string& field) {
  if (node.IsScalar()) {
    if (!ReadChoice{kStoppingRules}(diag, node, field)) return std::nullopt;
    return "median";
  }
  const Section section(diag, node, field, kStoppingKeys);
  if (!section.is_map()) return std::nullopt;
  nlohmann::json rule{{"rule", "median"}};
  std::optional<std::string> name;
  section.read("rule", name, ReadChoice{kStoppingRules});
  for (std::string_view key : {"min_trials", "start_step", "num_steps"}) {
    std::optional<std::uint32_t> value;
    section.read(key, value, read_positive_u32);
    if (value) rule[std::string(key)] = *value;
  }
  return rule;
}

// Reads `key` with `read` into extra[key] when present and good.
template <class Read>
void read_extra(const Section& section, nlohmann::json& extra, std::string_view key, const Read& read) {
  if (auto node = section.get(key))
    if (auto value = read(section.diagnostics(), *node, section.field(key))) extra[std::string(key)] = *value;
}

void read_extension_keys(const Section& section, SearcherConfig& searcher) {
  auto& extra = searcher.extra;
  read_extra(section, extra, "goal", read_number);
  read_extra(section, extra, "max_failed_trials", read_positive_u32);
  if (auto node = section.get("early_stopping"); node && searcher.name == "adaptive_asha") {
    section.diagnostics().report(*node, section.field("early_stopping"),
                                 "adaptive_asha stops trials itself; early_stopping is for grid, random, tpe "
                                 "and bayesian");
  } else {
    read_extra(section, extra, "early_stopping", read_early_stopping);
  }
  read_extra(section, extra, "n_startup_trials", read_positive_u32);
  read_extra(section, extra, "gamma", ReadRange{0, 1, true});
  read_extra(section, extra, "n_ei_candidates", read_positive_u32);
  read_extra(section, extra, "prior_weight", ReadRange{0, std::numeric_limits<double>::max(), true});
  read_extra(section, extra, "multivariate", read_bool);
  read_extra(section, extra, "bandwidth_factor", ReadRange{0, 1, true});
  read_extra(section, extra, "n_initial_points", read_positive_u32);
  read_extra(section, extra, "xi", ReadRange{0});
  read_extra(section, extra, "n_candidates", read_positive_u32);
}

void read_asha_options(const Section& section, SearcherConfig& searcher) {
  section.read("mode", searcher.mode, ReadChoice{kModes});
  section.read("divisor", searcher.divisor, ReadUnsigned<std::uint32_t>{2});
  section.read("max_rungs", searcher.max_rungs, read_positive_u32);
}

// The required map `key` of `section`, read as a section of `keys`; nullopt
// when missing or not a map (reported).
std::optional<Section> read_subsection(const Section& section, std::string_view key, Keys keys) {
  auto node = section.require(key);
  if (!node) return std::nullopt;
  Section sub(section.diagnostics(), *node, section.field(key), keys);
  if (!sub.is_map()) return std::nullopt;
  return sub;
}

// A truncate_fraction that replaces no trial of the population has no effect: refused.
void check_truncation(const Section& replace, const PbtSettings& pbt) {
  const auto node = replace.get("truncate_fraction");
  if (!node || pbt.truncate_fraction <= 0 || pbt.population_size == 0) return;
  if (std::floor(pbt.truncate_fraction * pbt.population_size) >= 1) return;
  replace.diagnostics().report(*node, replace.field("truncate_fraction"),
                               "replaces floor(" + format_number(pbt.truncate_fraction) + " x population_size " +
                                   std::to_string(pbt.population_size) +
                                   ") = 0 trials a round, so no trial would ever be exploited; expected at least " +
                                   format_number(1.0 / pbt.population_size) + " (1 / population_size)");
}

// pbt's keys; its max_length is length_per_round x num_rounds (saturated:
// cross_field_rules refuses a total beyond what a trial can train).
void read_pbt(const Section& section, SearcherConfig& searcher) {
  auto& pbt = searcher.pbt;
  section.read_required("population_size", pbt.population_size, read_positive_u32);
  section.read_required("num_rounds", pbt.num_rounds, read_positive_u32);
  section.read_required("length_per_round", pbt.length_per_round, read_length);
  if (auto replace = read_subsection(section, "replace_function", kReplaceFunctionKeys)) {
    replace->read_required("truncate_fraction", pbt.truncate_fraction, ReadRange{0, 0.5, true});
    check_truncation(*replace, pbt);
  }
  if (auto explore = read_subsection(section, "explore_function", kExploreFunctionKeys)) {
    explore->read_required("resample_probability", pbt.resample_probability, ReadRange{0, 1});
    explore->read_required("perturb_factor", pbt.perturb_factor, ReadRange{0, 1});
  }
  const std::uint64_t value = pbt.length_per_round.value, rounds = std::max<std::uint64_t>(pbt.num_rounds, 1);
  searcher.max_length = {pbt.length_per_round.unit, value > UINT64_MAX / rounds ? UINT64_MAX : value * rounds};
}

}  // namespace

std::vector<Keys> searcher_key_sets() {
  return {kSingleKeys, kGridKeys, kRandomKeys, kTpeKeys, kBayesianKeys, kAshaKeys, kPbtKeys};
}

Keys early_stopping_keys() { return kStoppingKeys; }
Keys replace_function_keys() { return kReplaceFunctionKeys; }
Keys explore_function_keys() { return kExploreFunctionKeys; }

SearcherConfig read_searcher(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  SearcherConfig searcher;
  searcher.name = read_name(diag, node, field);
  const Section section(diag, node, field, keys_of(searcher.name));
  (void)section.require("name");  // read above; this reports it missing
  section.read_required("metric", searcher.metric, read_nonempty_string);
  section.read("smaller_is_better", searcher.smaller_is_better, read_bool);
  if (searcher.name == "pbt") {
    read_pbt(section, searcher);
    return searcher;
  }
  section.read_required("max_length", searcher.max_length, read_length);
  section.read("max_concurrent_trials", searcher.max_concurrent_trials, read_count_u32);
  if (needs_max_trials(searcher.name)) {
    section.read_required("max_trials", searcher.max_trials, read_positive_u32);
  } else {
    section.read("max_trials", searcher.max_trials, read_positive_u32);
  }
  read_asha_options(section, searcher);
  read_extension_keys(section, searcher);
  return searcher;
}

}  // namespace volador::config
