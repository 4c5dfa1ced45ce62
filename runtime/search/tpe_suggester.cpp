#include "runtime/search/tpe_suggester.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace volador::search {
namespace {

using hparams::Leaf;
using hparams::LeafKind;

// Optuna's default weights: 1 for the 25 most recent, a ramp from 1/n for older ones.
std::vector<double> recency_weights(std::size_t n) {
  std::vector<double> w(n, 1.0);
  if (n <= 25) return w;
  const std::size_t ramp = n - 25;
  for (std::size_t i = 0; i < ramp; ++i)
    w[i] = ramp == 1 ? 1.0 / static_cast<double>(n)
                     : 1.0 / static_cast<double>(n) + (1.0 - 1.0 / static_cast<double>(n)) * static_cast<double>(i) /
                                                          static_cast<double>(ramp - 1);
  return w;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double standard_normal(hparams::Rng& rng) {
  const double u1 = 1.0 - hparams::uniform_unit(rng), u2 = hparams::uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// A mixture of normals truncated to [lo, hi].
struct Parzen {
  double lo = 0, hi = 0;
  std::vector<double> mu, sigma, weight;  // weights sum to 1
  std::vector<double> log_scale;          // see normalise()

  [[nodiscard]] double sample(hparams::Rng& rng) const {
    double u = hparams::uniform_unit(rng);
    std::size_t i = 0;
    while (i + 1 < weight.size() && u >= weight[i]) u -= weight[i++];
    for (int tries = 0; tries < 100; ++tries) {
      const double x = mu[i] + sigma[i] * standard_normal(rng);
      if (x >= lo && x <= hi) return x;
    }
    return std::clamp(mu[i], lo, hi);
  }

  [[nodiscard]] double log_pdf(double x) const {
    double max_term = -std::numeric_limits<double>::infinity();
    std::vector<double> terms(mu.size());
    for (std::size_t i = 0; i < mu.size(); ++i) {
      const double z = (x - mu[i]) / sigma[i];
      terms[i] = log_scale[i] - 0.5 * z * z;
      max_term = std::max(max_term, terms[i]);
    }
    double sum = 0;
    for (double t : terms) sum += std::exp(t - max_term);
    return max_term + std::log(sum);
  }

  // log of weight / (sqrt(2 pi) mass in [lo, hi]) per component, once weights and sigmas are set: the
  // score weighs each component by its bandwidth too (see tpe_suggester.hpp).
  void normalise() {
    log_scale.resize(mu.size());
    for (std::size_t i = 0; i < mu.size(); ++i) {
      const double mass = normal_cdf((hi - mu[i]) / sigma[i]) - normal_cdf((lo - mu[i]) / sigma[i]);
      log_scale[i] = std::log(weight[i]) - std::log(std::sqrt(2 * std::numbers::pi) * std::max(mass, 1e-300));
    }
  }
};

Parzen make_parzen(const std::vector<double>& values, double lo, double hi, double prior_weight) {
  Parzen p{lo, hi, {}, {}, {}, {}};
  const double range = hi - lo;
  const auto w = recency_weights(values.size());
  p.mu = values;
  p.weight = w;
  p.mu.push_back(lo + range / 2);  // the prior
  p.weight.push_back(prior_weight);
  std::vector<std::size_t> order(p.mu.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::sort(order, [&](std::size_t a, std::size_t b) { return p.mu[a] < p.mu[b]; });
  const double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(p.mu.size()));
  p.sigma.assign(p.mu.size(), range);
  for (std::size_t k = 0; k < order.size(); ++k) {  // the ends look inwards only (Optuna's consider_endpoints=False)
    const double here = p.mu[order[k]];
    const double left = k == 0 ? here : p.mu[order[k - 1]];
    const double right = k + 1 == order.size() ? here : p.mu[order[k + 1]];
    p.sigma[order[k]] = std::clamp(std::max(here - left, right - here), min_sigma, range);
  }
  p.sigma.back() = range;  // the prior is wide
  const double total = std::accumulate(p.weight.begin(), p.weight.end(), 0.0);
  for (double& x : p.weight) x /= total;
  p.normalise();
  return p;
}

std::vector<double> category_probabilities(const std::vector<double>& values, std::size_t k, double prior_weight) {
  std::vector<double> p(k, prior_weight / static_cast<double>(k));
  const auto w = recency_weights(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) p[static_cast<std::size_t>(values[i])] += w[i];
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= total;
  return p;
}

std::size_t sample_category(const std::vector<double>& p, hparams::Rng& rng) {
  double u = hparams::uniform_unit(rng);
  std::size_t i = 0;
  while (i + 1 < p.size() && u >= p[i]) u -= p[i++];
  return i;
}

}  // namespace

TpeSuggester::TpeSuggester(const hparams::Space& space, std::uint32_t seed, const TpeOptions& options)
    : ModelSuggester(space, seed, options.n_startup_trials), options_(options) {}

double TpeSuggester::choose(const Leaf& leaf, const std::vector<double>& good, const std::vector<double>& bad) {
  if (leaf.hi <= leaf.lo) return leaf.lo;
  std::vector<double> candidates;
  std::vector<double> scores;
  if (leaf.kind == LeafKind::categorical) {
    const auto k = static_cast<std::size_t>(leaf.hi) + 1;
    const auto l = category_probabilities(good, k, options_.prior_weight);
    const auto g = category_probabilities(bad, k, options_.prior_weight);
    for (std::uint32_t i = 0; i < options_.n_ei_candidates; ++i) {
      const std::size_t c = sample_category(l, rng());
      candidates.push_back(static_cast<double>(c));
      scores.push_back(std::log(l[c]) - std::log(g[c]));
    }
  } else {
    const double pad = leaf.kind == LeafKind::integer ? 0.5 : 0.0;  // ints: each value owns [v - 0.5, v + 0.5]
    const Parzen l = make_parzen(good, leaf.lo - pad, leaf.hi + pad, options_.prior_weight);
    const Parzen g = make_parzen(bad, leaf.lo - pad, leaf.hi + pad, options_.prior_weight);
    for (std::uint32_t i = 0; i < options_.n_ei_candidates; ++i) {
      double x = l.sample(rng());
      if (leaf.kind == LeafKind::integer) x = std::clamp(std::round(x), leaf.lo, leaf.hi);
      candidates.push_back(x);
      scores.push_back(l.log_pdf(x) - g.log_pdf(x));
    }
  }
  return candidates[static_cast<std::size_t>(std::ranges::max_element(scores) - scores.begin())];
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

  std::vector<double> coords(space().leaves().size(), 0.0);
  for (std::size_t d = 0; d < coords.size(); ++d) {
    const Leaf& leaf = space().leaves()[d];
    if (leaf.kind == LeafKind::constant) continue;
    std::vector<double> good, bad;
    for (std::size_t i = 0; i < n; ++i) (is_good[i] ? good : bad).push_back(history.coords[i][d]);
    for (const auto& p : history.pending) bad.push_back(p[d]);
    coords[d] = choose(leaf, good, bad);
  }
  return coords;
}

}  // namespace volador::search
