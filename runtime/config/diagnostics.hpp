#pragma once
// Internal to volador_config: the errors found in one file, and where each
// field read so far was written (for rules that span several fields).

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/config_parser.hpp"

namespace volador::config {

// "a.b" from ("a", "b"); just "b" at the top level.
std::string join_path(std::string_view path, std::string_view key);
// "a[3]"
std::string index_path(std::string_view path, std::size_t index);

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  // An error at the node's position (line 0 when the node has none).
  void report(const YAML::Node& at, std::string field, std::string message);
  void report(const YAML::Mark& at, std::string field, std::string message);
  // An error about the document as a whole (line and column 0).
  void report_document(std::string field, std::string message);

  // Field positions: remember() records where `field` was written; where()
  // returns it, or a null mark when the field is absent.
  void remember(const std::string& field, const YAML::Mark& mark);
  [[nodiscard]] YAML::Mark where(const std::string& field) const;

  // Fields that an unknown key probably meant (its did-you-mean): rules do
  // not report such a field again as missing.
  void note_misspelled(std::string field);
  [[nodiscard]] bool misspelled(const std::string& field) const;

  [[nodiscard]] bool has_errors() const { return !errors_.empty(); }
  // The errors ordered by position (document-wide ones first).
  [[nodiscard]] std::vector<ConfigError> take_sorted();

 private:
  std::string file_;
  std::vector<ConfigError> errors_;
  std::map<std::string, YAML::Mark> marks_;
  std::set<std::string> misspelled_;
};

}  // namespace volador::config
