#pragma once
// distributed.yaml -> ExperimentConfig, with every error reported at once.

#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/config/experiment_config.hpp"

namespace volador::config {

// One problem in a config file. `field` is the dotted path
// ("searcher.max_trials", "bind_mounts[1].host_path"; empty for YAML syntax
// errors and problems of the whole file); line and column are 1-based (0
// when the problem is about the whole document, such as a missing
// top-level key or a file over the size limit).
struct ConfigError {
  std::string file;
  int line = 0;
  int column = 0;
  std::string field;
  std::string message;  // e.g. `expected a positive integer, got "ten"`

  // "FILE:LINE:COL: FIELD: MESSAGE"; "LINE:COL:" is left out when line is
  // 0 and "FIELD: " when field is empty.
  [[nodiscard]] std::string to_string() const;
};

using ParseOutcome = std::variant<ExperimentConfig, std::vector<ConfigError>>;

// Parses and validates `yaml_text` (named `file_name` in errors). Returns the
// config, or every error found (never an empty list), ordered by position.
// Unknown keys are errors with a did-you-mean; duplicate keys are errors.
// Never throws; bounded in time and memory for hostile input: files over
// 1 MiB, documents over 100000 values once aliases are expanded (alias
// bombs) or nested over 64 levels are refused.
// The keys a config may have at its top level, as the parser checks them.
std::span<const std::string_view> top_level_keys();

ParseOutcome parse_experiment_config(std::string_view yaml_text, std::string_view file_name);

// All errors joined by newlines, for printing.
std::string format_errors(const std::vector<ConfigError>& errors);

}  // namespace volador::config
