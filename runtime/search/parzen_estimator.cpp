#include "runtime/search/parzen_estimator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace volador::search {
namespace {

using hparams::Leaf;
using hparams::LeafKind;

constexpr std::size_t kFlatWeights = 25;  // the most recent observations weigh 1

// log of the standard normal's CDF at z; an asymptotic series deep in the left tail, where erfc underflows.
double log_ndtr(double z) {
  if (z > 6) return std::log1p(-0.5 * std::erfc(z / std::numbers::sqrt2));
  if (z > -20) return std::log(0.5 * std::erfc(-z / std::numbers::sqrt2));
  double sum = 1, term = 1;
  for (int i = 1; i < 12; ++i) {
    term *= -(2.0 * i - 1) / (z * z);
    sum += term;
  }
  return -0.5 * z * z - std::log(-z) - 0.5 * std::log(2 * std::numbers::pi) + std::log(sum);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double standard_normal(hparams::Rng& rng) {
  const double u1 = 1.0 - hparams::uniform_unit(rng), u2 = hparams::uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// The index drawn from `probabilities` (summing to 1).
std::size_t draw_index(const std::vector<double>& probabilities, hparams::Rng& rng) {
  double u = hparams::uniform_unit(rng);
  std::size_t i = 0;
  while (i + 1 < probabilities.size() && u >= probabilities[i]) u -= probabilities[i++];
  return i;
}

// Univariate bandwidths: per centre, the larger gap to its neighbours in sorted order; the ends take their inner gap.
std::vector<double> neighbour_bandwidths(const std::vector<double>& mu) {
  std::vector<std::size_t> order(mu.size());
  std::iota(order.begin(), order.end(), 0);
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return mu[a] < mu[b]; });
  std::vector<double> sigma(mu.size(), 0.0);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double here = mu[order[k]];
    const double left = k == 0 ? 0.0 : here - mu[order[k - 1]];
    const double right = k + 1 == order.size() ? 0.0 : mu[order[k + 1]] - here;
    sigma[order[k]] = std::max(left, right);
  }
  return sigma;
}

double log_sum_exp(const std::vector<double>& terms) {
  const double top = *std::ranges::max_element(terms);
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (double t : terms) sum += std::exp(t - top);
  return top + std::log(sum);
}

}  // namespace

double log_gauss_mass(double a, double b) {
  if (b <= 0) {
    const double log_b = log_ndtr(b), log_a = log_ndtr(a);
    return log_b + std::log1p(-std::exp(log_a - log_b));
  }
  if (a > 0) return log_gauss_mass(-b, -a);
  return std::log1p(-normal_cdf(a) - normal_cdf(-b));
}

std::vector<double> recency_weights(std::size_t n) {
  std::vector<double> w(n, 1.0);
  if (n <= kFlatWeights) return w;
  const std::size_t ramp = n - kFlatWeights;
  const double first = 1.0 / static_cast<double>(n);
  for (std::size_t i = 0; i < ramp; ++i)
    w[i] = ramp == 1 ? first : first + (1.0 - first) * static_cast<double>(i) / static_cast<double>(ramp - 1);
  return w;
}

ParzenEstimator::ParzenEstimator(std::vector<const Leaf*> dims, const std::vector<std::vector<double>>& observations,
                                 const ParzenOptions& options)
    : options_(options), n_(observations.size()) {
  weights_ = recency_weights(n_);
  weights_.push_back(options_.prior_weight);
  const double total = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) {
    w /= total;
    log_weights_.push_back(std::log(w));
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    std::vector<double> column;
    for (const auto& row : observations) column.push_back(row[k]);
    kernels_.push_back(dims[k]->kind == LeafKind::categorical ? categorical_kernels(*dims[k], column)
                                                              : numeric_kernels(*dims[k], std::move(column), dims.size()));
  }
  // What of log_pdf's terms does not depend on x: each component's log weight and numeric normalisers.
  log_offsets_ = log_weights_;
  for (const auto& k : kernels_) {
    if (k.leaf->kind == LeafKind::categorical) continue;
    const double log_density = k.leaf->kind == LeafKind::integer ? 0.0 : -0.5 * std::log(2 * std::numbers::pi);
    for (std::size_t i = 0; i < log_offsets_.size(); ++i) log_offsets_[i] += log_density - k.log_mass[i];
  }
}

ParzenEstimator::Kernels ParzenEstimator::numeric_kernels(const Leaf& leaf, std::vector<double> mu,
                                                          std::size_t n_dims) const {
  const double pad = leaf.kind == LeafKind::integer ? 0.5 : 0.0;
  Kernels k{&leaf, leaf.lo - pad, leaf.hi + pad, {}, {}, {}, {}};
  const double range = k.hi - k.lo;
  mu.push_back(k.lo + range / 2);  // the prior
  if (options_.multivariate) {
    const double n = static_cast<double>(std::max<std::size_t>(n_, 1));
    k.sigma.assign(mu.size(), 0.2 * std::pow(n, -1.0 / (static_cast<double>(n_dims) + 4)) * range);
  } else {
    k.sigma = neighbour_bandwidths(mu);
  }
  const double factor = options_.bandwidth_factor;
  const double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(mu.size()));
  for (double& s : k.sigma) s = std::clamp(factor * s, factor * min_sigma, range);
  k.sigma.back() = range;
  for (std::size_t i = 0; i < mu.size(); ++i)
    k.log_mass.push_back(log_gauss_mass((k.lo - mu[i]) / k.sigma[i], (k.hi - mu[i]) / k.sigma[i]));
  k.mu = std::move(mu);
  return k;
}

ParzenEstimator::Kernels ParzenEstimator::categorical_kernels(const Leaf& leaf,
                                                              const std::vector<double>& observed) const {
  Kernels k{&leaf, 0, 0, {}, {}, {}, {}};
  const auto choices = static_cast<std::size_t>(leaf.hi) + 1;
  const double spread = options_.prior_weight / static_cast<double>(n_ + 1);
  const double row_total = 1.0 + spread * static_cast<double>(choices);
  for (double c : observed) {
    std::vector<double> row(choices, std::log(spread / row_total));
    row[static_cast<std::size_t>(c)] = std::log((spread + 1.0) / row_total);
    k.log_probs.push_back(std::move(row));
  }
  k.log_probs.emplace_back(choices, -std::log(static_cast<double>(choices)));  // the prior
  return k;
}

double ParzenEstimator::log_kernel(const Kernels& k, std::size_t i, double x) const {
  if (k.leaf->kind == LeafKind::categorical) return k.log_probs[i][static_cast<std::size_t>(x)];
  if (k.leaf->kind == LeafKind::integer) {
    const double below = std::max(x - 0.5, k.lo), above = std::min(x + 0.5, k.hi);
    return log_gauss_mass((below - k.mu[i]) / k.sigma[i], (above - k.mu[i]) / k.sigma[i]);
  }
  const double z = (x - k.mu[i]) / k.sigma[i];
  return -0.5 * z * z;
}

double ParzenEstimator::sample_kernel(const Kernels& k, std::size_t i, hparams::Rng& rng) const {
  if (k.leaf->kind == LeafKind::categorical) {
    std::vector<double> p;
    for (double lp : k.log_probs[i]) p.push_back(std::exp(lp));
    return static_cast<double>(draw_index(p, rng));
  }
  // The centre lies in [lo, hi] and sigma <= hi - lo, so a draw lands inside with probability >= 0.34.
  double x = std::clamp(k.mu[i], k.lo, k.hi);
  for (int tries = 0; tries < 100; ++tries) {
    const double draw = k.mu[i] + k.sigma[i] * standard_normal(rng);
    if (draw >= k.lo && draw <= k.hi) {
      x = draw;
      break;
    }
  }
  return k.leaf->kind == LeafKind::integer ? std::clamp(std::round(x), k.leaf->lo, k.leaf->hi) : x;
}

std::vector<double> ParzenEstimator::sample(hparams::Rng& rng) const {
  const std::size_t i = draw_index(weights_, rng);
  std::vector<double> x;
  for (const auto& k : kernels_) x.push_back(sample_kernel(k, i, rng));
  return x;
}

double ParzenEstimator::log_pdf(const std::vector<double>& x) const {
  std::vector<double> terms(log_offsets_);
  for (std::size_t i = 0; i < terms.size(); ++i)
    for (std::size_t d = 0; d < kernels_.size(); ++d) terms[i] += log_kernel(kernels_[d], i, x[d]);
  return log_sum_exp(terms);
}

}  // namespace volador::search
