#pragma once
// Gaussian-process regression with a Matérn 5/2 kernel with one length scale
// per input dimension (ARD), a signal variance and Gaussian noise, zero prior
// mean (callers standardise y). Hyperparameters are a vector theta =
// [log l_1 .. log l_D, log signal variance, log noise variance], fitted by
// maximising the log marginal likelihood (with weak priors keeping theta in
// sensible ranges for inputs in the unit cube and standardised outputs).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "runtime/search/linalg.hpp"

namespace volador::search {

using Points = std::vector<std::vector<double>>;

// theta for `dims` inputs before any fit: length scales 0.5, signal 1, noise 1e-3.
std::vector<double> default_gp_theta(std::size_t dims);

// The negative log marginal likelihood of y at x plus the priors' penalty,
// with its gradient in `grad`; +inf when the kernel matrix is not positive definite.
double gp_negative_log_likelihood(const Points& x, std::span<const double> y, std::span<const double> theta,
                                  std::span<double> grad);

// The theta minimising gp_negative_log_likelihood, by L-BFGS from each start.
std::vector<double> fit_gp_theta(const Points& x, std::span<const double> y, const Points& starts);

class GaussianProcess {
 public:
  struct Prediction {
    double mean = 0;
    double variance = 0;  // of the latent function (noise excluded), > 0
  };

  // The posterior given (x, y) and theta; nullopt when the kernel matrix is
  // not positive definite.
  static std::optional<GaussianProcess> condition(Points x, std::vector<double> y, std::vector<double> theta);

  // The prediction with the gradients of its mean and variance with respect
  // to the point's coordinates.
  struct PredictionWithGradient {
    Prediction value;
    std::vector<double> mean_gradient, variance_gradient;
  };

  [[nodiscard]] Prediction predict(std::span<const double> point) const;
  [[nodiscard]] PredictionWithGradient predict_with_gradient(std::span<const double> point) const;

 private:
  GaussianProcess(Points x, std::vector<double> theta, Matrix l, std::vector<double> alpha);

  Points x_;
  std::vector<double> theta_;
  Matrix l_;                  // Cholesky factor of K + noise I
  std::vector<double> alpha_;  // (K + noise I)^-1 y
};

}  // namespace volador::search
