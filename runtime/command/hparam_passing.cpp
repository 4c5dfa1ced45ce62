#include "runtime/command/hparam_passing.hpp"

#include <array>
#include <charconv>

#include "runtime/command/json_environment.hpp"

namespace volador::command {
namespace {

using nlohmann::json;

std::string shortest_round_trip(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string argument_value(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) return shortest_round_trip(value.get<double>());
  return render_json(value);  // integers, booleans, lists, null
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

// One placeholder found in an argument: where it starts, its length, the dotted name.
struct Placeholder {
  std::size_t at = 0;
  std::size_t length = 0;
  std::string name;
};

Result<std::vector<Placeholder>> placeholders_in(const std::string& argument) {
  std::vector<Placeholder> found;
  for (std::size_t at = argument.find(kPlaceholderOpen); at != std::string::npos;
       at = argument.find(kPlaceholderOpen, at + 1)) {
    const std::size_t close = argument.find('}', at);
    if (close == std::string::npos)
      return fail(Error::invalid_argument("'" + argument.substr(at) + "' opens a placeholder without its closing }"));
    std::string name = argument.substr(at + kPlaceholderOpen.size(), close - at - kPlaceholderOpen.size());
    if (name.empty() || name.front() == '.' || name.back() == '.')
      return fail(Error::invalid_argument("'" + argument.substr(at, close - at + 1) +
                                          "' names no hyperparameter; write ${hparams.NAME}"));
    found.push_back({at, close - at + 1, std::move(name)});
  }
  return found;
}

// The value at dotted `name` in `hparams`, or nullptr.
const json* value_at(const json& hparams, const std::string& name) {
  const json* node = &hparams;
  for (std::size_t start = 0;;) {
    const std::size_t dot = name.find('.', start);
    const std::string key = name.substr(start, dot - start);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

// `argument` with each of its `placeholders` replaced by its value in `hparams`.
Result<std::string> filled(const std::string& argument, const std::vector<Placeholder>& placeholders,
                           const json& hparams) {
  std::string replaced;
  std::size_t copied = 0;
  for (const auto& placeholder : placeholders) {
    const json* value = value_at(hparams, placeholder.name);
    if (value == nullptr || value->is_object())
      return fail(Error::not_found("${hparams." + placeholder.name + "}: the trial has no hyperparameter " +
                                   placeholder.name));
    replaced += argument.substr(copied, placeholder.at - copied) + argument_value(*value);
    copied = placeholder.at + placeholder.length;
  }
  return replaced + argument.substr(copied);
}

}  // namespace

Result<std::vector<std::string>> placeholder_names(const std::vector<std::string>& argv) {
  std::vector<std::string> names;
  for (const auto& argument : argv) {
    auto found = placeholders_in(argument);
    if (!found) return fail(found.error());
    for (auto& placeholder : *found) names.push_back(std::move(placeholder.name));
  }
  return names;
}

Result<std::vector<std::string>> command_arguments(const std::vector<std::string>& argv, const json& hparams) {
  std::vector<std::string> arguments;
  bool placed = false;
  for (const auto& argument : argv) {
    auto found = placeholders_in(argument);
    if (!found) return fail(found.error());
    placed = placed || !found->empty();
    auto argument_filled = filled(argument, *found, hparams);
    if (!argument_filled) return fail(argument_filled.error());
    arguments.push_back(std::move(*argument_filled));
  }
  if (!placed)
    for (auto& argument : hparam_arguments(hparams)) arguments.push_back(std::move(argument));
  return arguments;
}

std::vector<std::string> hparam_arguments(const json& hparams) {
  std::vector<std::string> arguments;
  add_arguments(hparams, "", arguments);
  return arguments;
}

}  // namespace volador::command
