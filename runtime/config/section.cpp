#include "runtime/config/section.hpp"

#include <algorithm>

#include "runtime/config/did_you_mean.hpp"
#include "runtime/config/scalars.hpp"

namespace volador::config {

Section::Section(Diagnostics& diag, const YAML::Node& node, std::string path, Keys known)
    : diag_(diag), node_(node), path_(std::move(path)), is_map_(node.IsMap()) {
  if (!is_map_) {
    diag_.report(node, path_, "expected a map, got " + describe(node));
    return;
  }
  for (const auto& entry : node) {
    // Non-scalar keys are reported once, by check_document().
    if (entry.first.IsScalar()) sort_key(entry.first, entry.second, known);
  }
}

void Section::sort_key(const YAML::Node& key, const YAML::Node& value, Keys known) {
  const std::string& name = key.Scalar();
  if (std::ranges::find(known, name) != known.end()) {
    if (!find(name)) entries_.emplace_back(name, value);
  } else if (auto suggestion = did_you_mean(name, known)) {
    diag_.note_misspelled(field(*suggestion));
    diag_.report(key, field(name),
                 "unknown field; did you mean \"" + std::string(*suggestion) + "\"?");
  } else {
    diag_.report(key, field(name), "unknown field");
  }
}

std::optional<YAML::Node> Section::peek(const YAML::Node& node, std::string_view key) {
  if (!node.IsMap()) return std::nullopt;
  for (const auto& entry : node) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return std::nullopt;
}

const YAML::Node* Section::find(std::string_view key) const {
  auto it = std::ranges::find(entries_, key, &std::pair<std::string, YAML::Node>::first);
  return it == entries_.end() ? nullptr : &it->second;
}

std::optional<YAML::Node> Section::get(std::string_view key) const {
  const YAML::Node* value = find(key);
  if (!value) return std::nullopt;
  diag_.remember(field(key), value->Mark());
  return *value;
}

std::optional<YAML::Node> Section::require(std::string_view key) const {
  auto value = get(key);
  if (!value && is_map_ && !diag_.misspelled(field(key))) {
    const std::string message = "missing required field";
    if (path_.empty()) {
      diag_.report_document(field(key), message);
    } else {
      diag_.report(node_, field(key), message);
    }
  }
  return value;
}

}  // namespace volador::config
