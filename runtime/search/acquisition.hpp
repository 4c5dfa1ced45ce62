#pragma once
// Acquisition functions of the bayesian searcher for a loss to minimise, as
// scores to MINIMISE from the posterior mean and standard deviation at a
// point, with the score's derivatives in both (for gradient-based search):
// -log expected improvement, -log probability of improvement (both on the
// incumbent `best` less a margin `xi`, in log form to stay informative far in
// the tail) and the lower confidence bound mean - kappa sd.

namespace volador::search {

enum class Acquisition { expected_improvement, probability_of_improvement, lower_confidence_bound };

struct AcquisitionScore {
  double value = 0;
  double d_mean = 0;  // d value / d mean
  double d_sd = 0;    // d value / d sd
};

struct AcquisitionSettings {
  double best = 0;     // the incumbent (lowest loss seen)
  double xi = 0;       // EI and PI: improvement margin (>= 0)
  double kappa = 1.96; // LCB: weight of the standard deviation
};

// The score of `acquisition` at a point with posterior `mean` and `sd` (> 0).
AcquisitionScore acquisition_score(Acquisition acquisition, double mean, double sd, const AcquisitionSettings& s);

}  // namespace volador::search
