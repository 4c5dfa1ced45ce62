#include "runtime/search/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>

namespace volador::search {
namespace {

constexpr std::size_t kMemory = 6;

double dot(std::span<const double> a, std::span<const double> b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

struct Pair {
  std::vector<double> s, y;  // step and gradient change
  double rho = 0;            // 1 / (y . s)
};

// The two-loop recursion: -H g for the stored pairs.
std::vector<double> direction(const std::deque<Pair>& pairs, std::span<const double> g) {
  std::vector<double> q(g.begin(), g.end());
  std::vector<double> alpha(pairs.size());
  for (std::size_t i = pairs.size(); i-- > 0;) {
    alpha[i] = pairs[i].rho * dot(pairs[i].s, q);
    for (std::size_t k = 0; k < q.size(); ++k) q[k] -= alpha[i] * pairs[i].y[k];
  }
  const double gamma = pairs.empty() ? 1.0 : dot(pairs.back().s, pairs.back().y) / dot(pairs.back().y, pairs.back().y);
  for (double& v : q) v *= gamma;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const double beta = pairs[i].rho * dot(pairs[i].y, q);
    for (std::size_t k = 0; k < q.size(); ++k) q[k] += pairs[i].s[k] * (alpha[i] - beta);
  }
  for (double& v : q) v = -v;
  return q;
}

// Whether variable k sits at a bound that the gradient pushes it against.
bool held(std::span<const double> x, std::span<const double> g, const Box& box, std::size_t k) {
  return (x[k] <= box.lower[k] && g[k] > 0) || (x[k] >= box.upper[k] && g[k] < 0);
}

// The largest component of the gradient over the variables not held at a bound.
double projected_gradient_norm(std::span<const double> x, std::span<const double> g, const Box& box) {
  double m = 0;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!held(x, g, box, k)) m = std::max(m, std::abs(g[k]));
  return m;
}

// The L-BFGS direction with the held variables fixed (their gradient and step zeroed).
std::vector<double> free_direction(const std::deque<Pair>& pairs, std::span<const double> x,
                                   std::span<const double> g, const Box& box) {
  std::vector<double> free_g(g.begin(), g.end());
  for (std::size_t k = 0; k < x.size(); ++k)
    if (held(x, g, box, k)) free_g[k] = 0;
  std::vector<double> d = direction(pairs, free_g);
  for (std::size_t k = 0; k < x.size(); ++k)
    if (held(x, g, box, k)) d[k] = 0;
  if (!(dot(g, d) < 0))  // not a descent direction: steepest descent on the free variables
    for (std::size_t k = 0; k < x.size(); ++k) d[k] = -free_g[k];
  return d;
}

}  // namespace

Minimum minimize_lbfgs(const Objective& f, std::vector<double> start, std::size_t max_iterations, double tolerance) {
  const std::size_t n = start.size();
  const Box unbounded{std::vector<double>(n, -std::numeric_limits<double>::infinity()),
                      std::vector<double>(n, std::numeric_limits<double>::infinity())};
  return minimize_lbfgs_in_box(f, std::move(start), unbounded, max_iterations, tolerance);
}

Minimum minimize_lbfgs_in_box(const Objective& f, std::vector<double> start, const Box& box,
                              std::size_t max_iterations, double tolerance) {
  const std::size_t n = start.size();
  std::vector<double> x = std::move(start), g(n), x_new(n), g_new(n);
  for (std::size_t k = 0; k < n; ++k) x[k] = std::clamp(x[k], box.lower[k], box.upper[k]);
  double fx = f(x, g);
  if (!std::isfinite(fx)) return {x, fx};
  std::deque<Pair> pairs;
  for (std::size_t it = 0; it < max_iterations && projected_gradient_norm(x, g, box) > tolerance; ++it) {
    const std::vector<double> d = free_direction(pairs, x, g, box);
    double step = pairs.empty() ? std::min(1.0, 1.0 / projected_gradient_norm(x, g, box)) : 1.0;
    double f_new = 0;
    bool accepted = false;
    for (int tries = 0; tries < 30 && !accepted; ++tries, step *= 0.5) {
      for (std::size_t k = 0; k < n; ++k) x_new[k] = std::clamp(x[k] + step * d[k], box.lower[k], box.upper[k]);
      f_new = f(x_new, g_new);
      double decrease = 0;  // g . (x_new - x): the projected step's first-order change
      for (std::size_t k = 0; k < n; ++k) decrease += g[k] * (x_new[k] - x[k]);
      accepted = std::isfinite(f_new) && decrease < 0 && f_new <= fx + 1e-4 * decrease;
    }
    if (!accepted) break;
    Pair p{std::vector<double>(n), std::vector<double>(n), 0};
    for (std::size_t k = 0; k < n; ++k) {
      p.s[k] = x_new[k] - x[k];
      p.y[k] = g_new[k] - g[k];
    }
    const double ys = dot(p.y, p.s);
    if (ys > 1e-12) {
      p.rho = 1.0 / ys;
      pairs.push_back(std::move(p));
      if (pairs.size() > kMemory) pairs.pop_front();
    }
    const bool flat = std::abs(fx - f_new) <= 1e-10 * std::max(1.0, std::abs(fx));
    x.swap(x_new);
    g.swap(g_new);
    fx = f_new;
    if (flat) break;
  }
  return {x, fx};
}

}  // namespace volador::search
