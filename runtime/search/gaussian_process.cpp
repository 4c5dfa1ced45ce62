#include "runtime/search/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/search/lbfgs.hpp"

namespace volador::search {
namespace {

const double kSqrt5 = std::sqrt(5.0);

// Soft bounds on theta (log space) and a weak log-normal prior on length scales.
constexpr double kLogLengthLo = -4.6, kLogLengthHi = 3.0;   // 0.01 .. 20
constexpr double kLogSignalLo = -3.0, kLogSignalHi = 3.0;   // 0.05 .. 20
constexpr double kLogNoiseLo = -13.8, kLogNoiseHi = 0.0;    // 1e-6 .. 1
constexpr double kLengthPriorMean = -0.7, kLengthPriorSd = 1.5;
constexpr double kWall = 50.0;
constexpr double kVarianceFloor = 1e-12;  // relative to the signal variance
// L-BFGS steps per start of the fit: enough to converge on 5-d data with 40-100
// results (25 stopped short of the likelihood's optimum there: tests/gaussian_process_test.cpp).
constexpr std::size_t kFitIterations = 100;

// Penalty of a value outside [lo, hi], added to the objective, and its slope.
double wall(double v, double lo, double hi, double& slope) {
  const double over = v > hi ? v - hi : (v < lo ? v - lo : 0.0);
  slope += 2 * kWall * over;
  return kWall * over * over;
}

double prior_penalty(std::span<const double> theta, std::span<double> grad) {
  const std::size_t dims = theta.size() - 2;
  double penalty = 0;
  for (std::size_t d = 0; d < dims; ++d) {
    const double z = (theta[d] - kLengthPriorMean) / kLengthPriorSd;
    penalty += 0.5 * z * z;
    grad[d] += z / kLengthPriorSd;
    penalty += wall(theta[d], kLogLengthLo, kLogLengthHi, grad[d]);
  }
  penalty += wall(theta[dims], kLogSignalLo, kLogSignalHi, grad[dims]);
  penalty += wall(theta[dims + 1], kLogNoiseLo, kLogNoiseHi, grad[dims + 1]);
  return penalty;
}

// r^2 between two points under the length scales.
double scaled_distance2(std::span<const double> a, std::span<const double> b, std::span<const double> inv_l2) {
  double r2 = 0;
  for (std::size_t d = 0; d < inv_l2.size(); ++d) r2 += (a[d] - b[d]) * (a[d] - b[d]) * inv_l2[d];
  return r2;
}

double matern52(double r2, double signal) {
  const double s5r = kSqrt5 * std::sqrt(r2);
  return signal * (1 + s5r + 5.0 * r2 / 3.0) * std::exp(-s5r);
}

std::vector<double> inverse_squared_lengths(std::span<const double> theta) {
  std::vector<double> inv(theta.size() - 2);
  for (std::size_t d = 0; d < inv.size(); ++d) inv[d] = std::exp(-2 * theta[d]);
  return inv;
}

Matrix kernel_matrix(const Points& x, std::span<const double> theta) {
  const auto inv_l2 = inverse_squared_lengths(theta);
  const double signal = std::exp(theta[theta.size() - 2]), noise = std::exp(theta.back());
  Matrix k(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j <= i; ++j) k(i, j) = k(j, i) = matern52(scaled_distance2(x[i], x[j], inv_l2), signal);
    k(i, i) += noise;
  }
  return k;
}

// grad[j] += -1/2 sum_ik W_ik dK_ik/dtheta_j, W = alpha alpha^T - K^-1, with
// `k` the kernel matrix (noise included) the likelihood was computed from.
void add_likelihood_gradient(const Points& x, std::span<const double> theta, const Matrix& k, const Matrix& w,
                             std::span<double> grad) {
  const std::size_t dims = theta.size() - 2;
  const auto inv_l2 = inverse_squared_lengths(theta);
  const double noise = std::exp(theta[dims + 1]);
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      const double factor = (i == j ? 1.0 : 2.0) * -0.5 * w(i, j);
      const double kij = i == j ? k(i, i) - noise : k(i, j);
      grad[dims] += factor * kij;
      if (i == j) {
        grad[dims + 1] += factor * noise;
        continue;
      }
      // dk/dlog l_d = signal 5/3 (1 + s5r) e^-s5r diff_d^2 / l_d^2, and k = signal (1 + s5r + 5 r^2 / 3) e^-s5r.
      const double r2 = scaled_distance2(x[i], x[j], inv_l2);
      const double s5r = kSqrt5 * std::sqrt(r2);
      const double common = kij * (5.0 / 3.0) * (1 + s5r) / (1 + s5r + 5.0 * r2 / 3.0);
      for (std::size_t d = 0; d < dims; ++d) {
        const double diff = x[i][d] - x[j][d];
        grad[d] += factor * common * diff * diff * inv_l2[d];
      }
    }
  }
}

}  // namespace

std::vector<double> default_gp_theta(std::size_t dims) {
  std::vector<double> theta(dims, std::log(0.5));
  theta.push_back(0.0);
  theta.push_back(std::log(1e-3));
  return theta;
}

double gp_negative_log_likelihood(const Points& x, std::span<const double> y, std::span<const double> theta,
                                  std::span<double> grad) {
  std::fill(grad.begin(), grad.end(), 0.0);
  const Matrix k = kernel_matrix(x, theta);
  Matrix l = k;
  if (!cholesky(l)) return std::numeric_limits<double>::infinity();
  std::vector<double> alpha(y.begin(), y.end());
  solve_lower(l, alpha);
  double nll = 0;
  for (double a : alpha) nll += 0.5 * a * a;  // 1/2 y^T K^-1 y = 1/2 |L^-1 y|^2
  for (std::size_t i = 0; i < l.size(); ++i) nll += std::log(l(i, i));
  solve_lower_transposed(l, alpha);
  Matrix w = cholesky_inverse(l);
  for (std::size_t i = 0; i < w.size(); ++i)
    for (std::size_t j = 0; j < w.size(); ++j) w(i, j) = alpha[i] * alpha[j] - w(i, j);
  add_likelihood_gradient(x, theta, k, w, grad);
  return nll + prior_penalty(theta, grad);
}

std::vector<double> fit_gp_theta(const Points& x, std::span<const double> y, const Points& starts) {
  const Objective f = [&](std::span<const double> theta, std::span<double> grad) {
    return gp_negative_log_likelihood(x, y, theta, grad);
  };
  Minimum best{starts.front(), std::numeric_limits<double>::infinity()};
  for (const auto& start : starts) {
    Minimum m = minimize_lbfgs(f, start, kFitIterations, 1e-4);
    if (m.value < best.value) best = std::move(m);
  }
  return best.x;
}

GaussianProcess::GaussianProcess(Points x, std::vector<double> theta, Matrix l, std::vector<double> alpha)
    : x_(std::move(x)), theta_(std::move(theta)), l_(std::move(l)), alpha_(std::move(alpha)) {}

std::optional<GaussianProcess> GaussianProcess::condition(Points x, std::vector<double> y, std::vector<double> theta) {
  Matrix l = kernel_matrix(x, theta);
  if (!cholesky(l)) return std::nullopt;
  solve_lower(l, y);
  solve_lower_transposed(l, y);
  return GaussianProcess(std::move(x), std::move(theta), std::move(l), std::move(y));
}

GaussianProcess::Prediction GaussianProcess::predict(std::span<const double> point) const {
  const auto inv_l2 = inverse_squared_lengths(theta_);
  const double signal = std::exp(theta_[theta_.size() - 2]);
  std::vector<double> k(x_.size());
  double mean = 0;
  for (std::size_t i = 0; i < x_.size(); ++i) {
    k[i] = matern52(scaled_distance2(point, x_[i], inv_l2), signal);
    mean += k[i] * alpha_[i];
  }
  solve_lower(l_, k);
  double explained = 0;
  for (double v : k) explained += v * v;
  return {mean, std::max(signal - explained, kVarianceFloor * signal)};
}

GaussianProcess::PredictionWithGradient GaussianProcess::predict_with_gradient(std::span<const double> point) const {
  const auto inv_l2 = inverse_squared_lengths(theta_);
  const double signal = std::exp(theta_[theta_.size() - 2]);
  const std::size_t n = x_.size(), dims = inv_l2.size();
  // dk_i/dpoint_d = -signal 5/3 (1 + s5r) e^-s5r (point_d - x_id) / l_d^2, kept as the factor before the difference.
  std::vector<double> k(n), slope(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double r2 = scaled_distance2(point, x_[i], inv_l2);
    const double s5r = kSqrt5 * std::sqrt(r2);
    k[i] = matern52(r2, signal);
    slope[i] = -signal * (5.0 / 3.0) * (1 + s5r) * std::exp(-s5r);
  }
  std::vector<double> v = k;  // K^-1 k, for the variance's gradient -2 (dk)^T K^-1 k
  solve_lower(l_, v);
  double explained = 0;
  for (double e : v) explained += e * e;
  solve_lower_transposed(l_, v);
  PredictionWithGradient out{{0, 0}, std::vector<double>(dims, 0.0), std::vector<double>(dims, 0.0)};
  for (std::size_t i = 0; i < n; ++i) {
    out.value.mean += k[i] * alpha_[i];
    for (std::size_t d = 0; d < dims; ++d) {
      const double dk = slope[i] * (point[d] - x_[i][d]) * inv_l2[d];
      out.mean_gradient[d] += dk * alpha_[i];
      out.variance_gradient[d] -= 2 * dk * v[i];
    }
  }
  out.value.variance = signal - explained;
  if (out.value.variance < kVarianceFloor * signal) {  // at the floor the variance does not change
    out.value.variance = kVarianceFloor * signal;
    std::ranges::fill(out.variance_gradient, 0.0);
  }
  return out;
}

}  // namespace volador::search
