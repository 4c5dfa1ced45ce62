#include "runtime/search/tpe_suggester.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "runtime/search/parzen_estimator.hpp"

namespace volador::search {
namespace {

using hparams::Leaf;
using hparams::LeafKind;

// The rows of `coords` (in order) restricted to the columns `columns`.
std::vector<std::vector<double>> select(const std::vector<std::vector<double>>& coords,
                                        const std::vector<std::size_t>& columns) {
  std::vector<std::vector<double>> rows;
  for (const auto& c : coords) {
    std::vector<double> row;
    for (std::size_t d : columns) row.push_back(c[d]);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

TpeSuggester::TpeSuggester(const hparams::Space& space, std::uint32_t seed, const TpeOptions& options)
    : ModelSuggester(space, seed, options.n_startup_trials), options_(options) {}

std::vector<double> TpeSuggester::choose(const std::vector<const Leaf*>& dims,
                                         const std::vector<std::vector<double>>& good,
                                         const std::vector<std::vector<double>>& bad) {
  const ParzenOptions parzen{options_.prior_weight, options_.multivariate, options_.bandwidth_factor};
  const ParzenEstimator l(dims, good, parzen), g(dims, bad, parzen);
  std::vector<double> best;
  double best_score = -std::numeric_limits<double>::infinity();
  for (std::uint32_t i = 0; i < options_.n_ei_candidates; ++i) {
    auto x = l.sample(rng());
    const double score = l.log_pdf(x) - g.log_pdf(x);
    if (best.empty() || score > best_score) {
      best_score = score;
      best = std::move(x);
    }
  }
  return best;
}

std::vector<double> TpeSuggester::propose(const History& history) {
  const std::size_t n = history.losses.size();
  const std::size_t n_good = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::ceil(options_.gamma * static_cast<double>(n))), 1, std::min<std::size_t>(25, n));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return history.losses[a] < history.losses[b]; });
  std::vector<bool> is_good(n, false);
  for (std::size_t k = 0; k < n_good; ++k) is_good[order[k]] = true;
  std::vector<std::vector<double>> good_coords, bad_coords;
  for (std::size_t i = 0; i < n; ++i) (is_good[i] ? good_coords : bad_coords).push_back(history.coords[i]);
  bad_coords.insert(bad_coords.end(), history.pending.begin(), history.pending.end());

  // Each leaf with more than one value is modelled: all in one group (multivariate) or each in its own.
  std::vector<double> coords;
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t d = 0; d < space().leaves().size(); ++d) {
    const Leaf& leaf = space().leaves()[d];
    coords.push_back(leaf.lo);
    if (leaf.kind == LeafKind::constant || leaf.hi <= leaf.lo) continue;
    if (groups.empty() || !options_.multivariate) groups.emplace_back();
    groups.back().push_back(d);
  }
  for (const auto& group : groups) {
    std::vector<const Leaf*> dims;
    for (std::size_t d : group) dims.push_back(&space().leaves()[d]);
    const auto chosen = choose(dims, select(good_coords, group), select(bad_coords, group));
    for (std::size_t k = 0; k < group.size(); ++k) coords[group[k]] = chosen[k];
  }
  return coords;
}

}  // namespace volador::search
