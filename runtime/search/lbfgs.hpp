#pragma once
// Limited-memory BFGS minimisation with a backtracking (Armijo) line search,
// for the Gaussian process's few hyperparameters.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace volador::search {

// f(x) with its gradient written to `grad` (same size as x); may return a
// non-finite value for points outside the domain (the step is then shortened).
using Objective = std::function<double(std::span<const double> x, std::span<double> grad)>;

struct Minimum {
  std::vector<double> x;
  double value = 0;
};

// Minimises f from `start` for at most `max_iterations` steps, stopping when
// the gradient's largest component falls below `tolerance`. Deterministic.
Minimum minimize_lbfgs(const Objective& f, std::vector<double> start, std::size_t max_iterations,
                       double tolerance = 1e-5);

}  // namespace volador::search
