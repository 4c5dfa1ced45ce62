#pragma once
// How a command entrypoint receives its trial's hyperparameters in its
// arguments: as `${hparams.NAME}` placeholders replaced by their values, or
// else as `--name=value` arguments appended. (They also arrive as JSON in
// VOLADOR_HPARAMS and its file: json_environment.hpp.)

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"

namespace volador::command {

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

}  // namespace volador::command
