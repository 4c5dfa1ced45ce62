#include "runtime/cli/trial_imports.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <regex>

namespace volador::cli {
namespace fs = std::filesystem;

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

// The module's source file: a.b -> a/b.py, or the package's a/b/__init__.py.
fs::path module_file(const fs::path& project, const std::string& module) {
  std::string relative = module;
  std::ranges::replace(relative, '.', '/');
  const auto file = project / (relative + ".py");
  return fs::exists(file) ? file : project / relative / "__init__.py";
}

}  // namespace

std::vector<std::string> unsupported_trial_imports(const fs::path& project, const command::PythonTrialEntrypoint& entrypoint) {
  const auto file = module_file(project, entrypoint.module);
  std::ifstream in(file);
  std::vector<std::string> found;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    for (const auto& api : unavailable_apis())
      if (std::regex_search(line, api.import))
        found.push_back(file.string() + ":" + std::to_string(number) + ": imports " + api.what + ": " + api.instead);
  }
  return found;
}

}  // namespace volador::cli
