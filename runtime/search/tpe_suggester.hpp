#pragma once
// `tpe`: the Tree-structured Parzen Estimator (Bergstra et al., 2011) as
// Optuna 3.1's TPESampler with its defaults. The results are split into the
// best n_below = min(ceil(gamma * n), 25) ("good") and the rest plus the
// trials still running ("bad"); a Parzen estimator (parzen_estimator.hpp) l
// of the good and g of the bad coordinates is built, and of n_ei_candidates
// draws from l the one maximising l(x)/g(x) is chosen. By default each
// hyperparameter on its own (one l and g per leaf, as Optuna's independent
// sampling); with `multivariate` one joint l and g over all leaves (Optuna's
// multivariate=True), so that interacting hyperparameters are chosen together.

#include "runtime/search/model_suggester.hpp"
#include "runtime/search/searcher_options.hpp"

namespace volador::search {

class TpeSuggester final : public ModelSuggester {
 public:
  TpeSuggester(const hparams::Space& space, std::uint32_t seed, const TpeOptions& options);

 private:
  std::vector<double> propose(const History& history) override;
  // The coordinates of `dims` maximising l/g among the candidates, given the good and bad rows (in trial order,
  // one coordinate per dim).
  std::vector<double> choose(const std::vector<const hparams::Leaf*>& dims, const std::vector<std::vector<double>>& good,
                             const std::vector<std::vector<double>>& bad);

  TpeOptions options_;
};

}  // namespace volador::search
