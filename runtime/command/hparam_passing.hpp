#pragma once
// How a command entrypoint receives its trial's hyperparameters: in its
// arguments (as `${hparams.NAME}` placeholders replaced by their values, or
// else as `--name=value` arguments appended), as JSON in the environment variable
// VOLADOR_HPARAMS, and as a JSON file named by VOLADOR_HPARAMS_FILE (which
// the worker writes; reporting.py's get_parameter() reads the variable, else
// the file).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/command/environment.hpp"
#include "runtime/core/error.hpp"

namespace volador::command {

inline constexpr std::string_view kHparamsEnvVar = "VOLADOR_HPARAMS";
inline constexpr std::string_view kHparamsFileEnvVar = "VOLADOR_HPARAMS_FILE";
// Above this many bytes of JSON only the file is passed: the kernel refuses
// an environment string over 128 KiB.
inline constexpr std::size_t kMaxHparamsEnvBytes = 64 * 1024;

// One `--name=value` per leaf of the hyperparameter object (anything but an
// object gives none), in key order;
// nested objects are flattened with dots (--optimizer.lr=0.1) and an empty
// one gives nothing. Values: strings as they are, booleans true/false,
// integers in decimal, floats in the shortest form that reads back the same
// (0.1, 1e-05, 3), lists and null as compact JSON ([64,32], null).
// Appended after the user's own arguments, so an argparse script sees the
// trial's value last.
[[nodiscard]] std::vector<std::string> hparam_arguments(const nlohmann::json& hparams);

// How a hyperparameter placeholder begins (split_command_line keeps it).
inline constexpr std::string_view kPlaceholderOpen = "${hparams.";

// Katib's explicit style: `${hparams.NAME}` anywhere in an argument stands
// for the trial's value of NAME (dotted for a nested one: ${hparams.optimizer.lr}),
// rendered as hparam_arguments renders values. The dotted names the
// placeholders of `argv` refer to, in order; invalid_argument for one left
// open ("${hparams.lr") or naming nothing ("${hparams.}").
[[nodiscard]] Result<std::vector<std::string>> placeholder_names(const std::vector<std::string>& argv);

// The arguments a command trial runs with: `argv` with its placeholders
// replaced when it has any (nothing is appended then: the user placed every
// value), else `argv` followed by hparam_arguments(hparams). Errors of
// placeholder_names, and not_found for a placeholder naming no value of `hparams`.
[[nodiscard]] Result<std::vector<std::string>> command_arguments(const std::vector<std::string>& argv,
                                                                 const nlohmann::json& hparams);

// The content of the hyperparameters file: the object as JSON, one line.
[[nodiscard]] std::string render_hparams_json(const nlohmann::json& hparams);

// VOLADOR_HPARAMS_FILE=`file_path`, and VOLADOR_HPARAMS with the JSON unless
// it is over kMaxHparamsEnvBytes.
[[nodiscard]] EnvironmentVariables hparam_environment(const nlohmann::json& hparams,
                                                      std::string_view file_path);

}  // namespace volador::command
