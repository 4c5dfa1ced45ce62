#include "runtime/search/acquisition.hpp"

#include <cmath>
#include <numbers>

namespace volador::search {
namespace {

// Below this z the normal tail is taken from its asymptotic series (whose
// next term is then below 1e-9 relative; above it erfc is exact enough, the
// cancellation in phi + z Phi costing under 3 digits).
constexpr double kTail = -20.0;

double log_normal_pdf(double z) { return -0.5 * z * z - 0.5 * std::log(2 * std::numbers::pi); }

// log Phi(z), the standard normal's log CDF.
double log_normal_cdf(double z) {
  if (z > kTail) return std::log(0.5 * std::erfc(-z / std::numbers::sqrt2));
  const double t = 1.0 / (z * z);  // Phi(z) = phi(z) / -z (1 - 1/z^2 + 3/z^4 - 15/z^6 + 105/z^8 - ...)
  return log_normal_pdf(z) - std::log(-z) + std::log(1 - t * (1 - t * (3 - t * (15 - 105 * t))));
}

// log h(z) with h(z) = phi(z) + z Phi(z), EI / sd.
double log_improvement_factor(double z) {
  if (z > kTail) return std::log(std::exp(log_normal_pdf(z)) + z * 0.5 * std::erfc(-z / std::numbers::sqrt2));
  const double t = 1.0 / (z * z);  // h(z) = phi(z) (1/z^2 - 3/z^4 + 15/z^6 - 105/z^8 + 945/z^10 - ...)
  return log_normal_pdf(z) + std::log(t * (1 - t * (3 - t * (15 - t * (105 - 945 * t)))));
}

}  // namespace

AcquisitionScore negative_log_expected_improvement(double mean, double sd, double best, double xi) {
  // EI = sd h(z), z = (best - xi - mean) / sd; h'(z) = Phi(z), and d(sd h)/dsd = phi(z).
  const double z = (best - xi - mean) / sd;
  const double log_h = log_improvement_factor(z);
  return {-std::log(sd) - log_h, std::exp(log_normal_cdf(z) - log_h) / sd,
          -std::exp(log_normal_pdf(z) - log_h) / sd};
}

}  // namespace volador::search
