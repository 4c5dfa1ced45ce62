#include "runtime/config/did_you_mean.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace volador::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

namespace {

bool one_begins_the_other(std::string_view a, std::string_view b) {
  return std::min(a.size(), b.size()) >= 3 && (a.starts_with(b) || b.starts_with(a));
}

// How far `name` is from `candidate` when that makes a plausible typo.
std::optional<std::size_t> typo_distance(std::string_view name, std::string_view candidate) {
  const std::size_t longer = std::max(name.size(), candidate.size());
  const std::size_t gap = longer - std::min(name.size(), candidate.size());
  if (name == candidate) return std::nullopt;
  if (one_begins_the_other(name, candidate)) return gap;
  // The distance is at least the gap: a long name costs no quadratic work.
  if (gap > longer / 2) return std::nullopt;
  const std::size_t distance = edit_distance(name, candidate);
  if (distance > longer / 2) return std::nullopt;
  return distance;
}

}  // namespace

std::optional<std::string_view> did_you_mean(std::string_view name,
                                             std::span<const std::string_view> candidates) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    const auto distance = typo_distance(name, candidate);
    if (distance && (!best || *distance < best_distance)) {
      best = candidate;
      best_distance = *distance;
    }
  }
  return best;
}

}  // namespace volador::config
