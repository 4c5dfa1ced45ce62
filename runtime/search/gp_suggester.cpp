#include "runtime/search/gp_suggester.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "runtime/search/acquisition.hpp"
#include "runtime/search/lbfgs.hpp"

namespace volador::search {
namespace {

using hparams::Leaf;
using hparams::LeafKind;

constexpr std::size_t kFitCap = 50, kConditionCap = 128;  // per half (best, recent)
// Beyond this many results the kernel is refitted from the last fit only.
constexpr std::size_t kFitFromOneStartBeyond = 200;
// Candidates around each of the best results; random and local candidates refined by L-BFGS-B and its steps.
constexpr std::size_t kIncumbents = 5, kPerIncumbent = 20, kRefined = 8, kRefineSteps = 50;

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

// Losses shifted and scaled to mean 0 and standard deviation 1 (1 when all are equal).
std::vector<double> standardised(std::vector<double> y) {
  const double mean = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(y.size());
  double var = 0;
  for (double v : y) var += (v - mean) * (v - mean);
  const double sd = var > 0 ? std::sqrt(var / static_cast<double>(y.size())) : 1.0;
  for (double& v : y) v = (v - mean) / sd;
  return y;
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
  std::vector<double> y = standardised(history.losses);

  const auto fit_idx = keep_best_and_recent(y, kFitCap);
  Points starts{theta_.size() == dims_ + 2 ? theta_ : default_gp_theta(dims_)};
  if (y.size() < kFitFromOneStartBeyond || theta_.empty()) {
    std::vector<double> random_start = default_gp_theta(dims_);
    for (std::size_t d = 0; d < dims_; ++d) random_start[d] = std::log(0.05 + 2.0 * hparams::uniform_unit(rng()));
    starts.push_back(random_start);
  }
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
  return from_unit(maximise_acquisition(*gp, x, y));
}

std::vector<double> GpSuggester::maximise_acquisition(const GaussianProcess& gp, const Points& x,
                                                      const std::vector<double>& y) {
  const double best = *std::ranges::min_element(y);
  const auto score = [&](const std::vector<double>& u) {
    const auto p = gp.predict(u);
    return negative_log_expected_improvement(p.mean, std::sqrt(p.variance), best, options_.xi).value;
  };
  // Scored candidates: random points and perturbations of the best results.
  std::vector<Candidate> candidates;
  for (std::uint32_t i = 0; i < options_.n_candidates; ++i) {
    auto u = to_unit(space().sample(rng()));
    const double s = score(u);
    candidates.push_back({std::move(u), s});
  }
  std::vector<std::size_t> by_loss(y.size());
  std::iota(by_loss.begin(), by_loss.end(), 0);
  std::ranges::stable_sort(by_loss, [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  for (std::size_t k = 0; k < std::min(kIncumbents, by_loss.size()); ++k)
    for (std::size_t j = 0; j < kPerIncumbent; ++j) {
      auto u = perturb(x[by_loss[k]], j == 0 ? 1e-3 : 0.05);
      const double s = score(u);
      candidates.push_back({std::move(u), s});
    }
  // The best few refined by L-BFGS-B in the unit cube, each result snapped to a real point.
  const std::size_t top = std::min(kRefined, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(top), candidates.end(),
                    [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  const Objective objective = [&](std::span<const double> u, std::span<double> grad) {
    const auto p = gp.predict_with_gradient(u);
    const double sd = std::sqrt(p.value.variance);
    const auto a = negative_log_expected_improvement(p.value.mean, sd, best, options_.xi);
    for (std::size_t d = 0; d < grad.size(); ++d)
      grad[d] = a.d_mean * p.mean_gradient[d] + a.d_sd * p.variance_gradient[d] / (2 * sd);
    return a.value;
  };
  const Box unit_cube{std::vector<double>(dims_, 0.0), std::vector<double>(dims_, 1.0)};
  Candidate winner = candidates.front();
  for (std::size_t k = 0; k < top; ++k) {
    auto u = feasible(minimize_lbfgs_in_box(objective, candidates[k].unit, unit_cube, kRefineSteps, 1e-9).x);
    const double s = score(u);
    if (s < winner.score) winner = {std::move(u), s};
  }
  return winner.unit;
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
