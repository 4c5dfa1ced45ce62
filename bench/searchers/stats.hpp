#pragma once
// Summary statistics of the bench's per-seed results.

#include <algorithm>
#include <cmath>
#include <vector>

namespace volador::search::testing {

// The q-quantile of `v` (not empty), interpolating linearly between order statistics.
inline double quantile(std::vector<double> v, double q) {
  std::ranges::sort(v);
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

}  // namespace volador::search::testing
