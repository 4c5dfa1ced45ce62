#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/search/acquisition.hpp"
#include "runtime/search/gaussian_process.hpp"
#include "runtime/search/lbfgs.hpp"
#include "runtime/search/linalg.hpp"

using namespace volador::search;

TEST_CASE("Cholesky, triangular solves and the inverse agree with a hand example", "[search][gp]") {
  Matrix a(3);
  const double values[3][3] = {{4, 2, 0.4}, {2, 5, 1}, {0.4, 1, 3}};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) a(i, j) = values[i][j];
  Matrix l = a;
  REQUIRE(cholesky(l));
  CHECK(l(0, 0) == Approx(2));
  CHECK(l(1, 0) == Approx(1));
  CHECK(l(1, 1) == Approx(2));
  std::vector<double> b{1, 2, 3};
  solve_lower(l, b);
  solve_lower_transposed(l, b);  // b = a^-1 (1, 2, 3)
  const Matrix inv = cholesky_inverse(l);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(b[i] == Approx(inv(i, 0) * 1 + inv(i, 1) * 2 + inv(i, 2) * 3));
    for (std::size_t j = 0; j < 3; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < 3; ++k) s += a(i, k) * inv(k, j);
      CHECK(s == Approx(i == j ? 1.0 : 0.0).margin(1e-12));
    }
  }
  Matrix singular(2);
  singular(0, 0) = singular(0, 1) = singular(1, 0) = singular(1, 1) = 1;
  CHECK_FALSE(cholesky(singular));
}

TEST_CASE("L-BFGS finds the minimum of the Rosenbrock function", "[search][gp]") {
  const Objective rosenbrock = [](std::span<const double> x, std::span<double> g) {
    g[0] = -2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] * x[0]);
    g[1] = 200 * (x[1] - x[0] * x[0]);
    return (1 - x[0]) * (1 - x[0]) + 100 * (x[1] - x[0] * x[0]) * (x[1] - x[0] * x[0]);
  };
  const Minimum m = minimize_lbfgs(rosenbrock, {-1.2, 1.0}, 500, 1e-8);
  CHECK(m.x[0] == Approx(1).margin(1e-4));
  CHECK(m.x[1] == Approx(1).margin(1e-4));
}

TEST_CASE("The GP likelihood's gradient matches finite differences", "[search][gp]") {
  const Points x{{0.1, 0.9}, {0.4, 0.2}, {0.8, 0.5}, {0.3, 0.35}, {0.65, 0.05}};
  const std::vector<double> y{0.5, -1.2, 0.3, 0.9, -0.4};
  const std::vector<double> theta{std::log(0.3), std::log(0.7), 0.2, std::log(0.01)};
  std::vector<double> grad(theta.size()), scratch(theta.size());
  const double f = gp_negative_log_likelihood(x, y, theta, grad);
  REQUIRE(std::isfinite(f));
  for (std::size_t j = 0; j < theta.size(); ++j) {
    auto up = theta, down = theta;
    up[j] += 1e-6;
    down[j] -= 1e-6;
    const double numeric =
        (gp_negative_log_likelihood(x, y, up, scratch) - gp_negative_log_likelihood(x, y, down, scratch)) / 2e-6;
    INFO("theta " << j);
    CHECK(grad[j] == Approx(numeric).epsilon(1e-4).margin(1e-6));
  }
}

TEST_CASE("A fitted GP interpolates its data and is unsure far from it", "[search][gp]") {
  Points x;
  std::vector<double> y;
  for (int i = 0; i <= 10; ++i) {
    const double t = 0.05 * i;  // data on [0, 0.5] only
    x.push_back({t});
    y.push_back(std::sin(6 * t));
  }
  const auto theta = fit_gp_theta(x, y, {default_gp_theta(1)});
  auto gp = GaussianProcess::condition(x, y, theta);
  REQUIRE(gp.has_value());
  const auto near = gp->predict(std::vector<double>{0.225});
  CHECK(near.mean == Approx(std::sin(6 * 0.225)).margin(0.02));
  const auto far = gp->predict(std::vector<double>{1.0});
  CHECK(far.variance > 20 * near.variance);
}

TEST_CASE("The kernel fit converges on 5-d data: the likelihood is stationary at the fitted theta", "[search][gp]") {
  // 40 points of a Levy-like function (a bowl with ripples) in the unit cube, standardised: the
  // bayesian searcher's fits on Levy-5 at 40-100 results, where 25 L-BFGS steps stopped short.
  Points x;
  std::vector<double> y;
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 40; ++i) {
    std::vector<double> p(5);
    double v = 0;
    for (std::size_t d = 0; d < 5; ++d) {
      p[d] = next();
      const double w = 5 * p[d] - 2;
      v += (w - 1) * (w - 1) * (1 + 10 * std::pow(std::sin(3.14159 * w + 1), 2)) * (d + 1) / 3.0;
    }
    x.push_back(p);
    y.push_back(v);
  }
  double mean = 0, var = 0;
  for (double v : y) mean += v / 40;
  for (double v : y) var += (v - mean) * (v - mean) / 40;
  for (double& v : y) v = (v - mean) / std::sqrt(var);
  const auto theta = fit_gp_theta(x, y, {default_gp_theta(5)});
  std::vector<double> grad(theta.size());
  REQUIRE(std::isfinite(gp_negative_log_likelihood(x, y, theta, grad)));
  for (std::size_t j = 0; j < theta.size(); ++j) {
    INFO("theta " << j << " = " << theta[j]);
    CHECK(std::abs(grad[j]) < 5e-3);  // 0.03 after 25 steps
  }
  CHECK(theta.back() < -13);  // noise-free data: the noise at its floor, 1e-6 (e^-7.2 after 25 steps)
}

TEST_CASE("Bounded L-BFGS stops at the bound the minimum lies beyond", "[search][gp]") {
  // (x0 - 2)^2 + (x1 + 0.5)^2 + x0 x1 in [0, 1]^2: the unconstrained minimum (3, -2) is
  // outside; the box's is (1, 0), both at a bound.
  const Objective f = [](std::span<const double> x, std::span<double> g) {
    g[0] = 2 * (x[0] - 2) + x[1];
    g[1] = 2 * (x[1] + 0.5) + x[0];
    return (x[0] - 2) * (x[0] - 2) + (x[1] + 0.5) * (x[1] + 0.5) + x[0] * x[1];
  };
  const Box box{{0, 0}, {1, 1}};
  const Minimum m = minimize_lbfgs_in_box(f, {0.3, 0.7}, box, 100, 1e-10);
  CHECK(m.x[0] == Approx(1.0));
  CHECK(m.x[1] == Approx(0.0).margin(1e-12));
  // An interior minimum is found as without bounds.
  const Minimum inner = minimize_lbfgs_in_box(f, {0.3, 0.7}, Box{{-5, -5}, {5, 5}}, 100, 1e-10);
  CHECK(inner.x[0] == Approx(3.0).margin(1e-6));
  CHECK(inner.x[1] == Approx(-2.0).margin(1e-6));
  // A start outside the box is clamped into it first.
  const Minimum clamped = minimize_lbfgs_in_box(f, {7, -3}, box, 100, 1e-10);
  CHECK(clamped.x[0] == Approx(1.0));
  CHECK(clamped.x[1] == Approx(0.0).margin(1e-12));
}

TEST_CASE("The GP's predictive mean and variance gradients match finite differences", "[search][gp]") {
  const Points x{{0.1, 0.9}, {0.4, 0.2}, {0.8, 0.5}, {0.3, 0.35}, {0.65, 0.05}};
  const std::vector<double> y{0.5, -1.2, 0.3, 0.9, -0.4};
  auto gp = GaussianProcess::condition(x, y, {std::log(0.3), std::log(0.7), 0.2, std::log(1e-4)});
  REQUIRE(gp.has_value());
  const std::vector<double> point{0.45, 0.3};
  const auto p = gp->predict_with_gradient(point);
  CHECK(p.value.mean == Approx(gp->predict(point).mean));
  CHECK(p.value.variance == Approx(gp->predict(point).variance));
  for (std::size_t d = 0; d < 2; ++d) {
    auto up = point, down = point;
    up[d] += 1e-6;
    down[d] -= 1e-6;
    INFO("dimension " << d);
    CHECK(p.mean_gradient[d] == Approx((gp->predict(up).mean - gp->predict(down).mean) / 2e-6).epsilon(1e-5));
    CHECK(p.variance_gradient[d] ==
          Approx((gp->predict(up).variance - gp->predict(down).variance) / 2e-6).epsilon(1e-5));
  }
}

TEST_CASE("Minus log EI's derivatives match finite differences, in the tail too", "[search][gp]") {
  const double best = -1.0, xi = 0.01;
  // z = (best - xi - mean) / sd from about +1 to about -40, both sides of the tail's series at -20.
  for (const auto [mean, sd] : {std::pair{-1.5, 0.4}, std::pair{0.2, 0.5}, std::pair{3.0, 0.4}, std::pair{6.0, 0.4},
                                std::pair{15.0, 0.4}}) {
    const auto a = negative_log_expected_improvement(mean, sd, best, xi);
    REQUIRE(std::isfinite(a.value));
    const double h = 1e-6;
    const double d_mean = (negative_log_expected_improvement(mean + h, sd, best, xi).value -
                           negative_log_expected_improvement(mean - h, sd, best, xi).value) / (2 * h);
    const double d_sd = (negative_log_expected_improvement(mean, sd + h, best, xi).value -
                         negative_log_expected_improvement(mean, sd - h, best, xi).value) / (2 * h);
    INFO("mean " << mean << ", sd " << sd);
    CHECK(a.d_mean == Approx(d_mean).epsilon(1e-4));
    CHECK(a.d_sd == Approx(d_sd).epsilon(1e-4));
  }
  // It falls as the mean falls and as the uncertainty grows, also where EI itself underflows.
  const auto score = [&](double mean, double sd) { return negative_log_expected_improvement(mean, sd, best, xi).value; };
  CHECK(score(0.0, 0.5) < score(1.0, 0.5));
  CHECK(score(1.0, 0.8) < score(1.0, 0.5));
  CHECK(score(20.0, 0.3) > score(10.0, 0.3));
  CHECK(std::isfinite(score(20.0, 0.3)));
  // Near the incumbent it is -log of the closed form sd (phi(z) + z Phi(z)).
  const double z = (best - xi - (-1.2)) / 0.3;
  const double ei = 0.3 * (std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI) + z * 0.5 * std::erfc(-z / std::sqrt(2.0)));
  CHECK(score(-1.2, 0.3) == Approx(-std::log(ei)));
}
