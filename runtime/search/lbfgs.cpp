#include "runtime/search/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
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

double max_abs(std::span<const double> v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

}  // namespace

Minimum minimize_lbfgs(const Objective& f, std::vector<double> start, std::size_t max_iterations, double tolerance) {
  const std::size_t n = start.size();
  std::vector<double> x = std::move(start), g(n), x_new(n), g_new(n);
  double fx = f(x, g);
  if (!std::isfinite(fx)) return {x, fx};
  std::deque<Pair> pairs;
  for (std::size_t it = 0; it < max_iterations && max_abs(g) > tolerance; ++it) {
    std::vector<double> d = direction(pairs, g);
    double slope = dot(g, d);
    if (!(slope < 0)) {  // not a descent direction: restart with steepest descent
      pairs.clear();
      for (std::size_t k = 0; k < n; ++k) d[k] = -g[k];
      slope = -dot(g, g);
    }
    double step = pairs.empty() ? std::min(1.0, 1.0 / max_abs(g)) : 1.0;
    double f_new = 0;
    bool accepted = false;
    for (int tries = 0; tries < 30 && !accepted; ++tries, step *= 0.5) {
      for (std::size_t k = 0; k < n; ++k) x_new[k] = x[k] + step * d[k];
      f_new = f(x_new, g_new);
      accepted = std::isfinite(f_new) && f_new <= fx + 1e-4 * step * slope;
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
