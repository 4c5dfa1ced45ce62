#pragma once
// How a command receives a JSON object from its trial (its hyperparameters,
// the config's `data` section): inline in one environment variable, and as a
// file (which the worker writes) named by another. volador.reporting's
// get_parameter() and get_data() read the variable, else the file.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/command/environment.hpp"
#include "runtime/core/error.hpp"

namespace volador::command {

// The two variables that pass one JSON object.
struct JsonVariables {
  std::string_view inline_value;  // the JSON itself
  std::string_view file;          // the path of a file holding it
};

inline constexpr JsonVariables kHparamsVariables{"VOLADOR_HPARAMS", "VOLADOR_HPARAMS_FILE"};
inline constexpr JsonVariables kDataVariables{"VOLADOR_DATA", "VOLADOR_DATA_FILE"};

// Above this many bytes of JSON only the file is passed: the kernel refuses
// an environment string over 128 KiB.
inline constexpr std::size_t kMaxInlineJsonBytes = 64 * 1024;

// The content of the file and of the inline variable: `value` as JSON, one
// line, invalid UTF-8 in a string replaced rather than thrown about.
[[nodiscard]] std::string render_json(const nlohmann::json& value);

// names.file=`file_path`, and names.inline_value=`json` (render_json's)
// unless it is over kMaxInlineJsonBytes.
[[nodiscard]] EnvironmentVariables json_environment(std::string json, JsonVariables names, std::string_view file_path);

// Writes `json` and a newline over `file_path` (rewrite_file: made if
// missing, rewritten in place, a symlink refused). Error io naming the file
// and the system's reason.
[[nodiscard]] Status write_json_file(std::string_view json, const std::filesystem::path& file_path);

}  // namespace volador::command
