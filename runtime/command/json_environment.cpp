#include "runtime/command/json_environment.hpp"

namespace volador::command {

std::string render_json(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

EnvironmentVariables json_environment(const nlohmann::json& value, JsonVariables names, std::string_view file_path) {
  EnvironmentVariables variables{{std::string(names.file), std::string(file_path)}};
  std::string text = render_json(value);
  if (text.size() <= kMaxInlineJsonBytes) variables.emplace(names.inline_value, std::move(text));
  return variables;
}

}  // namespace volador::command
