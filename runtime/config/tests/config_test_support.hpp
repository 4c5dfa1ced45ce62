#pragma once
// Helpers shared by the config tests.

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/config_parser.hpp"

namespace volador::config::testing {

// A valid config; lines appended to it start at line 10.
inline const std::string kBase =
    "name: t\n"
    "entrypoint: model_def:T\n"
    "hyperparameters:\n"
    "  global_batch_size: 32\n"
    "searcher:\n"
    "  name: single\n"
    "  metric: loss\n"
    "  max_length:\n"
    "    batches: 100\n";

// kBase followed by `lines`.
inline std::string with(const std::string& lines) { return kBase + lines; }

// kBase with a command entrypoint (same lines), followed by `lines`.
inline std::string with_command(const std::string& lines) {
  std::string base = kBase;
  const std::string_view trial_class = "model_def:T";
  base.replace(base.find(trial_class), trial_class.size(), "python3 train.py");
  return base + lines;
}

// The config a valid document parses to (fails the test otherwise).
inline ExperimentConfig parse_ok(const std::string& yaml) {
  auto outcome = parse_experiment_config(yaml, "distributed.yaml");
  if (auto* errors = std::get_if<std::vector<ConfigError>>(&outcome)) {
    FAIL("unexpected errors:\n" << format_errors(*errors) << "in:\n" << yaml);
  }
  return std::get<ExperimentConfig>(outcome);
}

// The errors of an invalid document as strings (fails the test if valid).
inline std::vector<std::string> parse_errors(const std::string& yaml) {
  auto outcome = parse_experiment_config(yaml, "distributed.yaml");
  if (std::holds_alternative<ExperimentConfig>(outcome)) FAIL("accepted:\n" << yaml);
  std::vector<std::string> out;
  for (const auto& error : std::get<std::vector<ConfigError>>(outcome)) out.push_back(error.to_string());
  return out;
}

// A bad document and the one error it must give, in full.
struct BadCase {
  std::string yaml;
  std::string error;
};

inline void check_bad_cases(const std::vector<BadCase>& cases) {
  for (const auto& bad : cases) {
    CAPTURE(bad.yaml);
    CHECK(parse_errors(bad.yaml) == std::vector<std::string>{bad.error});
  }
}

}  // namespace volador::config::testing
