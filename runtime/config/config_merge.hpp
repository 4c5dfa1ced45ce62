#pragma once
// `experiment fork --config FILE`: a journaled experiment's config with a
// file of changes merged over it, validated as a submission is. Where the
// original and the changes both hold a mapping under the same key, the two
// merge key by key; any other value of the changes (a scalar, a list, null)
// replaces the original's whole. Pure: no I/O.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/config/config_parser.hpp"

namespace volador::config {

// A YAML text and the name its errors give it.
struct ConfigText {
  std::string_view yaml;
  std::string_view file_name;
};

// The merged config, as YAML text and parsed.
struct MergedConfig {
  std::string yaml;
  ExperimentConfig config;
};

// The original's mappings merged with the changes' (an empty `changes.yaml`
// changes nothing). Errors: those of the changes as a document (syntax, not
// a mapping, duplicate keys, size limits) at FILE:LINE:COL of the changes;
// then every error of the merged config (parse_experiment_config), each at
// the line of the changes that set its field, else at the original's.
std::variant<MergedConfig, std::vector<ConfigError>> merge_config_changes(ConfigText original, ConfigText changes);

}  // namespace volador::config
