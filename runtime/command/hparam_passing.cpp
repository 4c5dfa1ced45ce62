#include "runtime/command/hparam_passing.hpp"

#include <array>
#include <charconv>

namespace volador::command {
namespace {

using nlohmann::json;

// Invalid UTF-8 in a string is replaced rather than thrown about.
std::string to_json_text(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string shortest_round_trip(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string argument_value(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return shortest_round_trip(value.get<double>());
  return to_json_text(value);  // integers, booleans, lists, null
}

void add_arguments(const json& hparams, const std::string& prefix, std::vector<std::string>& out) {
  if (!hparams.is_object()) return;
  for (const auto& [name, value] : hparams.items()) {
    const std::string path = prefix + name;
    if (value.is_object()) {
      add_arguments(value, path + ".", out);
    } else {
      out.push_back("--" + path + "=" + argument_value(value));
    }
  }
}

}  // namespace

std::vector<std::string> hparam_arguments(const json& hparams) {
  std::vector<std::string> arguments;
  add_arguments(hparams, "", arguments);
  return arguments;
}

std::string render_hparams_json(const json& hparams) { return to_json_text(hparams); }

EnvironmentVariables hparam_environment(const json& hparams, std::string_view file_path) {
  EnvironmentVariables variables{{std::string(kHparamsFileEnvVar), std::string(file_path)}};
  std::string text = render_hparams_json(hparams);
  if (text.size() <= kMaxHparamsEnvBytes) variables.emplace(kHparamsEnvVar, std::move(text));
  return variables;
}

}  // namespace volador::command
