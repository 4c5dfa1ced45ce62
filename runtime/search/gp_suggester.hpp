#pragma once
// `bayesian`: Bayesian optimisation with a Gaussian process (Matérn 5/2 ARD,
// gaussian_process.hpp) and expected improvement. Inputs live in the unit
// cube: double scaled linearly, log in its exponent (so log-scaled parameters
// are warped to a linear scale), int by the cell of its value, categorical
// one-hot (decoded by its largest column). Each suggestion refits the
// kernel's length scales, signal and noise by maximum marginal likelihood
// (L-BFGS from the previous fit, the default at first, and one random start; from the
// previous fit only beyond 200 results) on at most 100 results (the 50 best
// and 50 most recent), conditions on at most 256 (128 best, 128 most recent),
// treats running trials as observed at the predicted mean ("kriging
// believer", so concurrent suggestions spread out), scores n_candidates
// random points and perturbations of the 5 best results by log EI, and
// refines the 8 best by L-BFGS-B in the unit cube with EI's analytic
// gradient; the best feasible result is suggested.

#include "runtime/search/gaussian_process.hpp"
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

  struct Candidate {
    std::vector<double> unit;
    double score;  // the acquisition's, lower is better
  };
  // The feasible point of the unit cube with the best acquisition under `gp`,
  // given the results (x, y) it was conditioned on.
  std::vector<double> maximise_acquisition(const GaussianProcess& gp, const Points& x, const std::vector<double>& y);

  GpOptions options_;
  std::size_t dims_ = 0;
  std::vector<double> theta_;  // the last fit (warm start); empty before the first
};

}  // namespace volador::search
