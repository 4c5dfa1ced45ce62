#pragma once
// `.voladorignore`: paths of a model-definition folder left out of its archive
// (like Determined's .detignore). One glob pattern per line; blank lines and
// lines starting with `#` are skipped. A trailing `/` matches folders only. A
// pattern containing another `/` is matched (fnmatch, FNM_PATHNAME) against the
// path relative to the folder root, a leading `/` only anchoring it; any other
// pattern is matched against the base name at every depth. An ignored folder
// is skipped with everything under it. No negation (`!`) and no `**`.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::archives {

class IgnoreRules {
 public:
  static constexpr std::string_view kFileName = ".voladorignore";

  // Reads `root`/.voladorignore; no rules when it does not exist. io error when unreadable.
  static Result<IgnoreRules> load(const std::filesystem::path& root);
  static IgnoreRules parse(std::string_view text);

  // `relative_path` uses `/` separators, e.g. "data/train.csv".
  [[nodiscard]] bool ignored(std::string_view relative_path, bool is_directory) const;

 private:
  struct Pattern {
    std::string glob;
    bool directories_only = false;
    bool anchored = false;  // matched against the whole relative path
  };
  std::vector<Pattern> patterns_;
};

}  // namespace volador::archives
