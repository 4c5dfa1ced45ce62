#pragma once
// `tpe`: the Tree-structured Parzen Estimator (Bergstra et al., 2011), each
// hyperparameter on its own, as Optuna's default TPESampler. The results are
// split into the best n_below = min(ceil(gamma * n), 25) ("good") and the
// rest plus the trials still running ("bad"); for every hyperparameter a
// density l(x) of the good and g(x) of the bad values is built, and of
// n_ei_candidates drawn from l the one maximising l(x)/g(x) is chosen.
// Numeric leaves (int, double, log in its exponent): mixtures of truncated
// normals, one per observation plus a prior over the whole range, with
// Optuna's bandwidths (distance to the neighbours, clipped to
// [range / min(100, 1 + n), range]) and weights (the 25 most recent 1, older
// ones ramping down). Candidates are drawn from l with those weights; in the
// score l(x)/g(x) each component is also weighted by its bandwidth, as
// Optuna 3.1 does (its truncated-normal log-density leaves out the scale),
// which favours sparsely sampled regions: on Branin and Hartmann-6 it halves
// the median regret of the normalised mixture (bench/searchers/README.md).
// Categorical leaves: observed frequencies plus prior_weight spread over the
// choices.

#include "runtime/search/model_suggester.hpp"
#include "runtime/search/searcher_options.hpp"

namespace volador::search {

class TpeSuggester final : public ModelSuggester {
 public:
  TpeSuggester(const hparams::Space& space, std::uint32_t seed, const TpeOptions& options);

 private:
  std::vector<double> propose(const History& history) override;
  // The chosen coordinate of leaf `leaf` given the good and bad values (in trial order).
  double choose(const hparams::Leaf& leaf, const std::vector<double>& good, const std::vector<double>& bad);

  TpeOptions options_;
};

}  // namespace volador::search
