#include "master/trial_imports.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <regex>
#include <sstream>
#include <utility>

#include "storage/archives/archive.hpp"

namespace volador::master {
namespace {

struct Unavailable {
  std::regex import;
  const char* what;
  const char* instead;
};

const std::array<Unavailable, 2>& unavailable_apis() {
  static const std::array<Unavailable, 2> apis{{
      {std::regex(R"(^\s*(import\s+determined\.keras\b|from\s+determined\.keras\b|from\s+determined\s+import\s+.*\bkeras\b))"),
       "determined.keras",
       "Keras trials are not available in Volador; port the model to determined.pytorch.PyTorchTrial, or run the "
       "Keras script as a command entrypoint (entrypoint: python3 train.py)"},
      {std::regex(R"(^\s*(import\s+(determined\.pytorch\.)?deepspeed\b|from\s+(determined\.pytorch\.)?deepspeed\b|)"
                  R"(from\s+determined\.pytorch\s+import\s+.*\b(deepspeed|DeepSpeedTrial)\b))"),
       "DeepSpeed",
       "DeepSpeed trials are not available in Volador; use determined.pytorch.PyTorchTrial, or run the DeepSpeed "
       "script as a command entrypoint (entrypoint: deepspeed train.py ...)"},
  }};
  return apis;
}

// The module's source file in the archive: a.b -> a/b.py, or the package's a/b/__init__.py; nullopt if neither.
Result<std::optional<std::pair<std::string, std::string>>> module_source(std::string_view archive,
                                                                        const std::string& module) {
  std::string relative = module;
  std::ranges::replace(relative, '.', '/');
  for (const auto& file : {relative + ".py", relative + "/__init__.py"}) {
    auto source = archives::read_archive_file(archive, file, archives::kMaxUnpackedBytes);
    if (!source) return fail(source.error());
    if (*source) return std::optional(std::pair(file, std::move(**source)));
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<std::string>> unsupported_trial_imports(std::string_view archive,
                                                           const command::PythonTrialEntrypoint& entrypoint) {
  auto source = module_source(archive, entrypoint.module);
  if (!source) return fail(source.error());
  std::vector<std::string> found;
  if (!*source) return found;
  const auto& [file, text] = **source;
  std::istringstream in(text);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    for (const auto& api : unavailable_apis())
      if (std::regex_search(line, api.import))
        found.push_back(file + ":" + std::to_string(number) + ": imports " + api.what + ": " + api.instead);
  }
  return found;
}

}  // namespace volador::master
