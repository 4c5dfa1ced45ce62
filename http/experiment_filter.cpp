#include "http/experiment_filter.hpp"

#include <algorithm>
#include <cctype>
#include <functional>

namespace volador::http {
namespace {

std::string lowercase(std::string text) {
  std::ranges::transform(text, text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool matches(const wire::ExperimentSummary& e, const ExperimentFilter& filter, const std::string& text) {
  if (filter.state && e.state != *filter.state) return false;
  if (filter.owner && e.owner != *filter.owner) return false;
  if (filter.label && std::ranges::find(e.labels, *filter.label) == e.labels.end()) return false;
  if (filter.workspace && e.workspace != *filter.workspace) return false;
  if (filter.project && e.project != *filter.project) return false;
  if (filter.archived && e.archived != *filter.archived) return false;
  if (text.empty()) return true;
  return lowercase(e.name).find(text) != std::string::npos || std::to_string(e.id) == text;
}

using Less = std::function<bool(const wire::ExperimentSummary&, const wire::ExperimentSummary&)>;

// Ties keep id order, so pages never overlap.
Less order_by(const std::string& key) {
  auto by = [](auto field) -> Less {
    return [field](const auto& a, const auto& b) { return std::pair(field(a), a.id) < std::pair(field(b), b.id); };
  };
  if (key == "name") return by([](const auto& e) { return lowercase(e.name); });
  if (key == "state") return by([](const auto& e) { return std::string(to_string(e.state)); });
  if (key == "progress") return by([](const auto& e) { return e.progress; });
  if (key == "created") return by([](const auto& e) { return e.created_at_ms; });
  // Experiments without a best trial sort after those with one.
  if (key == "best") return by([](const auto& e) { return std::pair(!e.best, e.best ? e.best->metric : 0.0); });
  return by([](const auto& e) { return e.id; });
}

}  // namespace

const std::vector<std::string>& experiment_sort_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const char* key : {"id", "name", "state", "progress", "created", "best"}) {
      out.emplace_back(key);
      out.push_back(std::string("-") + key);
    }
    return out;
  }();
  return keys;
}

ExperimentPage select_experiments(std::vector<wire::ExperimentSummary> all, const ExperimentFilter& filter) {
  const auto text = lowercase(filter.text);
  std::erase_if(all, [&](const auto& e) { return !matches(e, filter, text); });
  const bool descending = filter.sort.starts_with('-');
  const auto less = order_by(descending ? filter.sort.substr(1) : filter.sort);
  std::ranges::sort(all, [&](const auto& a, const auto& b) { return descending ? less(b, a) : less(a, b); });
  ExperimentPage page;
  page.total = all.size();
  const auto begin = std::min<std::uint64_t>(filter.offset, all.size());
  const auto end = std::min<std::uint64_t>(begin + filter.limit, all.size());
  page.experiments.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(begin)),
                          std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(end)));
  return page;
}

}  // namespace volador::http
