#include "runtime/command/entrypoint.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <ranges>

#include "runtime/command/command_line.hpp"

namespace volador::command {
namespace {

constexpr std::string_view kNativePrefix = "native:";
constexpr std::string_view kBlanks = " \t\n";
constexpr std::string_view kPythonSuffix = ".py";

std::string_view trim(std::string_view text) {
  const auto begin = text.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kBlanks) - begin + 1);
}

bool is_identifier(std::string_view word) {
  const auto is_word_char = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
  return !word.empty() && !std::isdigit(static_cast<unsigned char>(word.front())) &&
         std::ranges::all_of(word, is_word_char);
}

bool is_module_name(std::string_view name) {
  return std::ranges::all_of(std::views::split(name, '.'), [](auto part) {
    return is_identifier(std::string_view(part.begin(), part.end()));
  });
}

// "module:Class" or "module.py:Class" when `text` is one, else nothing.
std::optional<PythonTrialEntrypoint> as_python_trial(std::string_view text) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto module = text.substr(0, colon);
  if (module.ends_with(kPythonSuffix)) module.remove_suffix(kPythonSuffix.size());
  const auto class_name = text.substr(colon + 1);
  if (!is_module_name(module) || !is_identifier(class_name)) return std::nullopt;
  return PythonTrialEntrypoint{std::string(module), std::string(class_name)};
}

}  // namespace

Result<Entrypoint> classify_entrypoint(std::string_view text) {
  const auto trimmed = trim(text);
  if (trimmed.starts_with(kNativePrefix)) {
    const auto name = trim(trimmed.substr(kNativePrefix.size()));
    if (name.empty()) return fail(Error::invalid_argument("`native:` names no trial; write native:<name>"));
    return NativeTrialEntrypoint{std::string(name)};
  }
  if (auto trial = as_python_trial(trimmed)) return *trial;
  auto argv = split_command_line(text);
  if (!argv) return fail(argv.error());
  return CommandEntrypoint{std::move(*argv)};
}

}  // namespace volador::command
