#include "runtime/config/diagnostics.hpp"

#include <algorithm>
#include <tuple>

namespace volador::config {

std::string join_path(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return std::string(path) + "." + std::string(key);
}

std::string index_path(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

void Diagnostics::report(const YAML::Node& at, std::string field, std::string message) {
  report(at.Mark(), std::move(field), std::move(message));
}

void Diagnostics::report(const YAML::Mark& at, std::string field, std::string message) {
  if (at.is_null()) return report_document(std::move(field), std::move(message));
  errors_.push_back({file_, at.line + 1, at.column + 1, std::move(field), std::move(message)});
}

void Diagnostics::report_document(std::string field, std::string message) {
  errors_.push_back({file_, 0, 0, std::move(field), std::move(message)});
}

void Diagnostics::remember(const std::string& field, const YAML::Mark& mark) {
  marks_.emplace(field, mark);
}

YAML::Mark Diagnostics::where(const std::string& field) const {
  auto it = marks_.find(field);
  return it == marks_.end() ? YAML::Mark::null_mark() : it->second;
}

void Diagnostics::note_misspelled(std::string field) { misspelled_.insert(std::move(field)); }

bool Diagnostics::misspelled(const std::string& field) const { return misspelled_.contains(field); }

std::vector<ConfigError> Diagnostics::take_sorted() {
  std::stable_sort(errors_.begin(), errors_.end(), [](const ConfigError& a, const ConfigError& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return std::move(errors_);
}

}  // namespace volador::config
