#include "storage/archives/ignore_rules.hpp"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace volador::archives {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

Result<IgnoreRules> IgnoreRules::load(const std::filesystem::path& root) {
  const auto file = root / kFileName;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return IgnoreRules{};
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (!(in && text << in.rdbuf())) return fail(Error::io("cannot read " + file.string()));
  return parse(text.str());
}

IgnoreRules IgnoreRules::parse(std::string_view text) {
  IgnoreRules rules;
  std::istringstream lines{std::string(text)};
  for (std::string raw; std::getline(lines, raw);) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    Pattern pattern;
    pattern.directories_only = line.back() == '/';
    while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    pattern.anchored = line.find('/') != std::string_view::npos;
    while (!line.empty() && line.front() == '/') line.remove_prefix(1);
    if (line.empty()) continue;
    pattern.glob = std::string(line);
    rules.patterns_.push_back(std::move(pattern));
  }
  return rules;
}

bool IgnoreRules::ignored(std::string_view relative_path, bool is_directory) const {
  const std::string path(relative_path);
  const std::string name(base_name(relative_path));
  for (const Pattern& pattern : patterns_) {
    if (pattern.directories_only && !is_directory) continue;
    const bool match = pattern.anchored ? ::fnmatch(pattern.glob.c_str(), path.c_str(), FNM_PATHNAME) == 0
                                        : ::fnmatch(pattern.glob.c_str(), name.c_str(), 0) == 0;
    if (match) return true;
  }
  return false;
}

}  // namespace volador::archives
