#include "runtime/search/gp_suggester.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "runtime/search/gaussian_process.hpp"

namespace volador::search {
namespace {

using hparams::Leaf;
using hparams::LeafKind;

constexpr std::size_t kFitCap = 50, kConditionCap = 200;  // per half (best, recent)
constexpr std::size_t kLocalSeeds = 5, kLocalPerSeed = 20, kRefined = 3, kRefineSteps = 30;

std::size_t width(const Leaf& leaf) {
  switch (leaf.kind) {
    case LeafKind::constant: return 0;
    case LeafKind::categorical: return leaf.hi > 0 ? static_cast<std::size_t>(leaf.hi) + 1 : 0;
    default: return leaf.hi > leaf.lo ? 1 : 0;
  }
}

// Indices of the `cap` lowest losses and the `cap` most recent, without repeats, in order.
std::vector<std::size_t> keep_best_and_recent(const std::vector<double>& losses, std::size_t cap) {
  const std::size_t n = losses.size();
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  if (n <= 2 * cap) return all;
  std::vector<std::size_t> by_loss = all;
  std::ranges::stable_sort(by_loss, [&](std::size_t a, std::size_t b) { return losses[a] < losses[b]; });
  std::vector<bool> keep(n, false);
  for (std::size_t k = 0; k < cap; ++k) keep[by_loss[k]] = keep[n - 1 - k] = true;
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i]) out.push_back(i);
  return out;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// log EI for a minimisation with incumbent `best`, stable far in the tail.
double log_expected_improvement(const GaussianProcess::Prediction& p, double best, double xi) {
  const double sigma = std::sqrt(p.variance);
  const double z = (best - xi - p.mean) / sigma;
  const double log_phi = -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi);
  if (z > -6) return std::log(sigma) + std::log(std::exp(log_phi) + z * normal_cdf(z));
  const double t2 = 1.0 / (z * z);  // h(z) = phi(z) (1/z^2 - 3/z^4 + 15/z^6 - ...)
  return std::log(sigma) + log_phi + std::log(t2 * (1 - 3 * t2 + 15 * t2 * t2));
}

double standard_normal(hparams::Rng& rng) {
  const double u1 = 1.0 - hparams::uniform_unit(rng), u2 = hparams::uniform_unit(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

template <class T>
std::vector<T> pick(const std::vector<T>& v, const std::vector<std::size_t>& idx) {
  std::vector<T> out;
  for (std::size_t i : idx) out.push_back(v[i]);
  return out;
}

}  // namespace

GpSuggester::GpSuggester(const hparams::Space& space, std::uint32_t seed, const GpOptions& options)
    : ModelSuggester(space, seed, options.n_initial_points), options_(options) {
  for (const auto& leaf : this->space().leaves()) dims_ += width(leaf);
}

std::vector<double> GpSuggester::to_unit(const std::vector<double>& coords) const {
  std::vector<double> u;
  u.reserve(dims_);
  for (std::size_t i = 0; i < coords.size(); ++i) {
    const Leaf& leaf = space().leaves()[i];
    const std::size_t w = width(leaf);
    if (w == 0) continue;
    if (leaf.kind == LeafKind::categorical) {
      for (std::size_t c = 0; c < w; ++c) u.push_back(c == static_cast<std::size_t>(coords[i]) ? 1.0 : 0.0);
    } else if (leaf.kind == LeafKind::integer) {
      u.push_back((coords[i] - leaf.lo + 0.5) / (leaf.hi - leaf.lo + 1));
    } else {
      u.push_back((coords[i] - leaf.lo) / (leaf.hi - leaf.lo));
    }
  }
  return u;
}

std::vector<double> GpSuggester::from_unit(const std::vector<double>& unit) const {
  std::vector<double> coords;
  std::size_t at = 0;
  for (const Leaf& leaf : space().leaves()) {
    const std::size_t w = width(leaf);
    double x = leaf.lo;
    if (leaf.kind == LeafKind::categorical && w > 0) {
      x = static_cast<double>(std::max_element(unit.begin() + static_cast<std::ptrdiff_t>(at),
                                               unit.begin() + static_cast<std::ptrdiff_t>(at + w)) -
                              (unit.begin() + static_cast<std::ptrdiff_t>(at)));
    } else if (leaf.kind == LeafKind::integer && w > 0) {
      x = std::min(leaf.lo + std::floor(std::clamp(unit[at], 0.0, 1.0) * (leaf.hi - leaf.lo + 1)), leaf.hi);
    } else if (w > 0) {
      x = leaf.lo + std::clamp(unit[at], 0.0, 1.0) * (leaf.hi - leaf.lo);
    }
    coords.push_back(x);
    at += w;
  }
  return snap(std::move(coords));
}

std::vector<double> GpSuggester::perturb(const std::vector<double>& unit, double scale) {
  std::vector<double> out = unit;
  for (double& v : out) v = std::clamp(v + scale * standard_normal(rng()), 0.0, 1.0);
  return feasible(out);
}

std::vector<double> GpSuggester::propose(const History& history) {
  if (dims_ == 0) return space().sample(rng());
  Points x;
  for (const auto& c : history.coords) x.push_back(to_unit(c));
  std::vector<double> y = history.losses;
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  double var = 0;
  for (double v : y) var += (v - mean) * (v - mean);
  const double sd = var > 0 ? std::sqrt(var / static_cast<double>(y.size())) : 1.0;
  for (double& v : y) v = (v - mean) / sd;

  const auto fit_idx = keep_best_and_recent(y, kFitCap);
  Points starts{theta_.size() == dims_ + 2 ? theta_ : default_gp_theta(dims_)};
  std::vector<double> random_start = default_gp_theta(dims_);
  for (std::size_t d = 0; d < dims_; ++d) random_start[d] = std::log(0.05 + 2.0 * hparams::uniform_unit(rng()));
  starts.push_back(random_start);
  theta_ = fit_gp_theta(pick(x, fit_idx), pick(y, fit_idx), starts);

  const auto cond_idx = keep_best_and_recent(y, kConditionCap);
  Points cx = pick(x, cond_idx);
  std::vector<double> cy = pick(y, cond_idx);
  auto gp = GaussianProcess::condition(cx, cy, theta_);
  if (!gp) return space().sample(rng());
  if (!history.pending.empty()) {
    for (const auto& p : history.pending) {
      cx.push_back(to_unit(p));
      cy.push_back(gp->predict(cx.back()).mean);
    }
    auto believer = GaussianProcess::condition(cx, cy, theta_);
    if (believer) gp = std::move(believer);
  }
  const double best = *std::ranges::min_element(y);
  const auto score = [&](const std::vector<double>& u) {
    return log_expected_improvement(gp->predict(u), best, options_.xi);
  };

  struct Candidate {
    std::vector<double> unit;
    double score;
  };
  std::vector<Candidate> candidates;
  for (std::uint32_t i = 0; i < options_.n_candidates; ++i) {
    auto u = to_unit(space().sample(rng()));
    const double s = score(u);
    candidates.push_back({std::move(u), s});
  }
  std::vector<std::size_t> by_loss(y.size());
  std::iota(by_loss.begin(), by_loss.end(), 0);
  std::ranges::stable_sort(by_loss, [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  for (std::size_t k = 0; k < std::min(kLocalSeeds, by_loss.size()); ++k)
    for (std::size_t j = 0; j < kLocalPerSeed; ++j) {
      auto u = perturb(x[by_loss[k]], 0.05);
      const double s = score(u);
      candidates.push_back({std::move(u), s});
    }
  const std::size_t top = std::min(kRefined, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(top), candidates.end(),
                    [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  for (std::size_t k = 0; k < top; ++k) {
    double scale = 0.05;
    for (std::size_t step = 0; step < kRefineSteps; ++step) {
      auto u = perturb(candidates[k].unit, scale);
      const double s = score(u);
      if (s > candidates[k].score) candidates[k] = {std::move(u), s};
      else scale = std::max(scale * 0.7, 1e-3);
    }
  }
  const auto winner = std::max_element(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(top),
                                       [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  return from_unit(winner->unit);
}

Status GpSuggester::load_model(const nlohmann::json& state) {
  if (state.is_null()) {
    theta_.clear();
    return {};
  }
  if (!state.is_array() || state.size() != dims_ + 2 ||
      !std::ranges::all_of(state, [](const nlohmann::json& v) { return v.is_number(); }))
    return fail(Error::corruption("bayesian searcher state has a malformed kernel fit"));
  theta_ = state.get<std::vector<double>>();
  return {};
}

}  // namespace volador::search
