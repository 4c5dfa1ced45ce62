#pragma once
// Limited-memory BFGS minimisation with a backtracking (Armijo) line search,
// optionally inside a box (projected L-BFGS, in the spirit of L-BFGS-B:
// variables at a bound with the gradient pushing out are held fixed, the
// quasi-Newton step is taken in the others and projected back into the box).
// Used for the Gaussian process's hyperparameters and its acquisition function.

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

// Inclusive bounds per variable (lower[i] <= upper[i]; infinities allowed).
struct Box {
  std::vector<double> lower, upper;
};

// Minimises f from `start` for at most `max_iterations` steps, stopping when
// the gradient's largest component falls below `tolerance`. Deterministic.
Minimum minimize_lbfgs(const Objective& f, std::vector<double> start, std::size_t max_iterations,
                       double tolerance = 1e-5);

// The same inside `box` (start clamped into it): stops when the projected
// gradient's largest component falls below `tolerance`. Deterministic.
Minimum minimize_lbfgs_in_box(const Objective& f, std::vector<double> start, const Box& box,
                              std::size_t max_iterations, double tolerance = 1e-5);

}  // namespace volador::search
