#include "runtime/config/config_merge.hpp"

#include <charconv>
#include <optional>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/document.hpp"

namespace volador::config {
namespace {

// Merges `changes` into `base` (both mappings): see the header.
void merge_into(YAML::Node base, const YAML::Node& changes) {
  for (const auto& entry : changes) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& constant = base;
    const YAML::Node existing = constant[key];
    if (existing && existing.IsMap() && entry.second.IsMap()) merge_into(base[key], entry.second);
    else base[key] = YAML::Clone(entry.second);
  }
}

// The steps of a field path: "a.b[2].c" -> a, b, [2], c.
std::vector<std::string> steps_of(std::string_view field) {
  std::vector<std::string> steps;
  std::string step;
  for (char c : field) {
    if (c == '.' || c == '[') {
      if (!step.empty()) steps.push_back(std::move(step));
      step = c == '[' ? "[" : "";
    } else if (c == ']') {
      steps.push_back(step + "]");
      step.clear();
    } else {
      step += c;
    }
  }
  if (!step.empty()) steps.push_back(std::move(step));
  return steps;
}

// Where `field` lies in `root`: the mark of its deepest part present, nullopt when its first part is absent.
std::optional<YAML::Mark> mark_of(const YAML::Node& root, std::string_view field) {
  std::optional<YAML::Mark> found;
  YAML::Node at = root;
  for (const auto& step : steps_of(field)) {
    YAML::Node next;
    std::size_t index = 0;
    const bool indexed = step.front() == '[' && step.size() > 2 &&
                         std::from_chars(step.data() + 1, step.data() + step.size() - 1, index).ec == std::errc();
    if (indexed && at.IsSequence()) {
      if (index >= at.size()) break;
      next = at[index];
    } else if (at.IsMap()) {
      const YAML::Node& constant = at;
      next = constant[step];
    }
    if (!next) break;
    found = next.Mark();
    at = next;
  }
  return found;
}

// `error`, found in the merged text, placed in the changes when they set its field, else in the original.
ConfigError placed(ConfigError error, const YAML::Node& original, ConfigText original_text, const YAML::Node& changes,
                   ConfigText changes_text) {
  auto in_changes = mark_of(changes, error.field);
  auto mark = in_changes ? in_changes : mark_of(original, error.field);
  error.file = std::string(in_changes ? changes_text.file_name : original_text.file_name);
  error.line = mark && !mark->is_null() ? mark->line + 1 : 0;
  error.column = mark && !mark->is_null() ? mark->column + 1 : 0;
  return error;
}

// The top-level mapping of `text` checked as a document, or nullopt with the errors in `diag`.
std::optional<YAML::Node> checked_document(Diagnostics& diag, std::string_view text) {
  auto root = load_document(diag, text);
  if (!root || !check_document(diag, *root) || diag.has_errors()) return std::nullopt;
  return root;
}

}  // namespace

std::variant<MergedConfig, std::vector<ConfigError>> merge_config_changes(ConfigText original, ConfigText changes) {
  Diagnostics original_diag{std::string(original.file_name)};
  auto original_root = checked_document(original_diag, original.yaml);
  if (!original_root) return original_diag.take_sorted();
  YAML::Node changes_root{YAML::NodeType::Map};
  if (changes.yaml.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    Diagnostics changes_diag{std::string(changes.file_name)};
    auto root = checked_document(changes_diag, changes.yaml);
    if (!root) return changes_diag.take_sorted();
    changes_root = *root;
  }
  YAML::Node merged = YAML::Clone(*original_root);
  merge_into(merged, changes_root);
  YAML::Emitter out;
  out << merged;
  std::string yaml = std::string(out.c_str()) + "\n";
  auto parsed = parse_experiment_config(yaml, changes.file_name);
  if (auto* config = std::get_if<ExperimentConfig>(&parsed)) return MergedConfig{std::move(yaml), std::move(*config)};
  std::vector<ConfigError> errors;
  for (auto& e : std::get<std::vector<ConfigError>>(parsed))
    errors.push_back(placed(std::move(e), *original_root, original, changes_root, changes));
  return errors;
}

}  // namespace volador::config
