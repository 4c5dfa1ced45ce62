#include "runtime/config/searcher.hpp"

#include <array>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/length.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 7> kNames{"single", "grid",  "random",  "adaptive_asha",
                                                 "adaptive", "tpe", "bayesian"};
constexpr std::array<std::string_view, 3> kModes{"aggressive", "standard", "conservative"};

constexpr std::array<std::string_view, 4> kSingleKeys{"name", "metric", "smaller_is_better",
                                                      "max_length"};
constexpr std::array<std::string_view, 8> kGridKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials"};
constexpr std::array<std::string_view, 9> kRandomKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials", "max_trials"};
constexpr std::array<std::string_view, 12> kAshaKeys{
    "name", "metric", "smaller_is_better", "max_length", "max_concurrent_trials",
    "early_stopping", "goal", "max_failed_trials", "max_trials", "mode", "divisor", "max_rungs"};
constexpr std::array<std::string_view, 3> kExtensionKeys{"early_stopping", "goal",
                                                         "max_failed_trials"};

// Keys of a searcher by name; unknown or absent names know every key.
Keys keys_of(std::string_view name) {
  if (name == "single") return kSingleKeys;
  if (name == "grid") return kGridKeys;
  if (name == "random" || name == "tpe" || name == "bayesian") return kRandomKeys;
  return kAshaKeys;
}

bool keeps_unknown_keys(std::string_view name) { return name == "tpe" || name == "bayesian"; }

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

void read_extra(const Section& section, SearcherConfig& searcher) {
  for (std::string_view key : kExtensionKeys) {
    if (auto value = section.get(key)) searcher.extra[std::string(key)] = to_json(*value);
  }
  for (const auto& [key, value] : section.kept()) searcher.extra[key] = to_json(value);
}

void read_asha_options(const Section& section, SearcherConfig& searcher) {
  section.read("mode", searcher.mode, ReadChoice{kModes});
  section.read("divisor", searcher.divisor, ReadUnsigned<std::uint32_t>{2});
  section.read("max_rungs", searcher.max_rungs, read_positive_u32);
}

}  // namespace

SearcherConfig read_searcher(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  SearcherConfig searcher;
  searcher.name = read_name(diag, node, field);
  const Section section(diag, node, field, keys_of(searcher.name),
                        keeps_unknown_keys(searcher.name) ? Section::Unknown::keep
                                                          : Section::Unknown::refuse);
  (void)section.require("name");  // read above; this reports it missing
  section.read_required("metric", searcher.metric, read_nonempty_string);
  section.read("smaller_is_better", searcher.smaller_is_better, read_bool);
  section.read_required("max_length", searcher.max_length, read_length);
  section.read("max_concurrent_trials", searcher.max_concurrent_trials, read_count_u32);
  if (needs_max_trials(searcher.name)) {
    section.read_required("max_trials", searcher.max_trials, read_positive_u32);
  } else {
    section.read("max_trials", searcher.max_trials, read_positive_u32);
  }
  read_asha_options(section, searcher);
  read_extra(section, searcher);
  return searcher;
}

}  // namespace volador::config
