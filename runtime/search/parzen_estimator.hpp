#pragma once
// The Parzen estimator of `tpe` (tpe_suggester.hpp), as Optuna 3.1's TPE
// builds it: a weighted mixture with one component per observation plus a
// prior component, each component a product of one kernel per dimension.
//   real, log (in its exponent): a normal truncated to [lo, hi] centred on the
//     observation; the prior's is centred mid-range with sigma = hi - lo. Its
//     log-density leaves out the -log(sigma), as Optuna 3.1's does: in the
//     ratio l(x)/g(x) each component counts in proportion to its bandwidth,
//     which favours sparsely sampled regions (on Branin and Hartmann-6 it
//     halves the median regret of the normalised mixture);
//   int: the same normal over [lo - 0.5, hi + 0.5], x's probability the mass
//     of [x - 0.5, x + 0.5];
//   categorical: prior_weight / (n + 1) on every choice plus 1 on the observed
//     one, normalised; the prior's uniform.
// Component weights: 1 for the 25 most recent observations, older ones on a
// ramp from 1/n up (Optuna's default_weights), prior_weight for the prior;
// normalised. Bandwidths, times bandwidth_factor (1: Optuna's), in each
// dimension clipped to [bandwidth_factor (hi - lo) / min(100, n + 2), hi - lo]
// (the prior's hi - lo):
//   univariate (estimators of one dimension): the larger distance from the
//     observation to its neighbours among the observations and the prior's
//     centre; at the ends, the distance to the one inner neighbour;
//   multivariate: Scott's rule, 0.2 n^(-1 / (d + 4)) (hi - lo).

#include <cstddef>
#include <vector>

#include "runtime/hparams/flat_space.hpp"

namespace volador::search {

struct ParzenOptions {
  double prior_weight = 1.0;  // > 0
  bool multivariate = false;      // bandwidths by Scott's rule rather than by neighbour distances
  double bandwidth_factor = 1.0;  // in (0, 1]: scales every observation's bandwidth and its lower clip
};

class ParzenEstimator {
 public:
  // `dims`: the leaves modelled (not constant, lo < hi; outliving the
  // estimator); `observations`: one row per observation, in trial order, one
  // coordinate per dim (ints and categoricals whole, all within range).
  ParzenEstimator(std::vector<const hparams::Leaf*> dims, const std::vector<std::vector<double>>& observations,
                  const ParzenOptions& options);

  // A draw from the mixture: one coordinate per dim (ints and categoricals whole).
  [[nodiscard]] std::vector<double> sample(hparams::Rng& rng) const;
  // The log-density of the mixture at `x` (one coordinate per dim), up to
  // the constant factors described above (equal for every estimator over the
  // same dims, so differences of log_pdf are log-ratios).
  [[nodiscard]] double log_pdf(const std::vector<double>& x) const;

 private:
  // One dimension's kernels, one per component (the prior last).
  struct Kernels {
    const hparams::Leaf* leaf = nullptr;
    double lo = 0, hi = 0;                       // numeric: the truncation range (ints padded by 0.5)
    std::vector<double> mu, sigma, log_mass;     // numeric: log_mass = log of the mass in [lo, hi]
    std::vector<std::vector<double>> log_probs;  // categorical: per component, per choice
  };

  // `n_dims`: how many dims the estimator models (Scott's rule depends on it).
  [[nodiscard]] Kernels numeric_kernels(const hparams::Leaf& leaf, std::vector<double> mu, std::size_t n_dims) const;
  [[nodiscard]] Kernels categorical_kernels(const hparams::Leaf& leaf, const std::vector<double>& observed) const;
  // log of component `i`'s kernel of dimension `k` at `x`, less its normaliser (in log_offsets_).
  [[nodiscard]] double log_kernel(const Kernels& k, std::size_t i, double x) const;
  [[nodiscard]] double sample_kernel(const Kernels& k, std::size_t i, hparams::Rng& rng) const;

  ParzenOptions options_;
  std::size_t n_ = 0;  // observations
  std::vector<double> weights_, log_weights_;
  std::vector<double> log_offsets_;  // per component: log weight, less the numeric kernels' log normalisers
  std::vector<Kernels> kernels_;  // one per dim
};

// log of the standard normal's mass in [a, b] (a <= b), accurate far in the tails.
double log_gauss_mass(double a, double b);

// Optuna's default_weights: n weights in trial order, the 25 most recent 1,
// older ones on a ramp from 1/n (the oldest) towards 1.
std::vector<double> recency_weights(std::size_t n);

}  // namespace volador::search
