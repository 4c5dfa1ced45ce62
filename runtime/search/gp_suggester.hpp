#pragma once
// `bayesian`: Bayesian optimisation with a Gaussian process (Matérn 5/2 ARD,
// gaussian_process.hpp) and expected improvement. Inputs live in the unit
// cube: double and log (in its exponent) scaled linearly, int by the cell of
// its value, categorical one-hot. Each suggestion refits the kernel's
// hyperparameters by maximum marginal likelihood (L-BFGS from the previous
// fit, the default and one random start) on at most 100 results (the 50 best
// and 50 most recent), conditions on at most 400 (200 best, 200 most recent),
// treats running trials as observed at the predicted mean ("kriging
// believer", so concurrent suggestions spread out), and maximises EI over
// n_candidates random points plus perturbations of the best results, the top
// ones refined by a shrinking local search.

#include "runtime/search/model_suggester.hpp"
#include "runtime/search/searcher_options.hpp"

namespace volador::search {

class GpSuggester final : public ModelSuggester {
 public:
  GpSuggester(const hparams::Space& space, std::uint32_t seed, const GpOptions& options);

 private:
  std::vector<double> propose(const History& history) override;
  [[nodiscard]] nlohmann::json save_model() const override {
    return theta_.empty() ? nlohmann::json(nullptr) : nlohmann::json(theta_);
  }
  Status load_model(const nlohmann::json& state) override;

  // Leaf coordinates <-> points in the unit cube.
  [[nodiscard]] std::vector<double> to_unit(const std::vector<double>& coords) const;
  [[nodiscard]] std::vector<double> from_unit(const std::vector<double>& unit) const;
  // The nearest point that decodes to real hyperparameters.
  [[nodiscard]] std::vector<double> feasible(const std::vector<double>& unit) const {
    return to_unit(from_unit(unit));
  }
  [[nodiscard]] std::vector<double> perturb(const std::vector<double>& unit, double scale);

  GpOptions options_;
  std::size_t dims_ = 0;
  std::vector<double> theta_;  // the last fit (warm start); empty before the first
};

}  // namespace volador::search
