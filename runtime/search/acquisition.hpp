#pragma once
// The bayesian searcher's acquisition function for a loss to minimise:
// -log expected improvement as a score to MINIMISE from the posterior mean
// and standard deviation at a point, with its derivatives in both (for
// gradient-based search). In log form, with the normal tail's asymptotic
// series far below the incumbent, it stays informative where EI underflows.

namespace volador::search {

struct AcquisitionScore {
  double value = 0;
  double d_mean = 0;  // d value / d mean
  double d_sd = 0;    // d value / d sd
};

// -log E[max(best - xi - f, 0)] for f ~ N(mean, sd^2), sd > 0, xi >= 0 the
// improvement margin over the incumbent `best`.
AcquisitionScore negative_log_expected_improvement(double mean, double sd, double best, double xi);

}  // namespace volador::search
