#include "runtime/command/json_environment.hpp"

#include "runtime/core/file_rewrite.hpp"

namespace volador::command {

std::string render_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

EnvironmentVariables json_environment(std::string json, JsonVariables names, std::string_view file_path) {
  EnvironmentVariables variables{{std::string(names.file), std::string(file_path)}};
  if (json.size() <= kMaxInlineJsonBytes) variables.emplace(names.inline_value, std::move(json));
  return variables;
}

Status write_json_file(std::string_view json, const std::filesystem::path& file_path) {
  std::string text;
  text.reserve(json.size() + 1);
  text.append(json).push_back('\n');
  return rewrite_file(file_path, text);
}

}  // namespace volador::command
