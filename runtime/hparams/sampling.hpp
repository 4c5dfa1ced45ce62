#pragma once
// Drawing concrete hyperparameter values from a Space.

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/hparams/space.hpp"

namespace volador::hparams {

// The random engine every sampler uses; its state can be saved as text.
using Rng = std::mt19937_64;

// One sample: a JSON object mirroring the space's nesting. int: uniform over
// [minval, maxval]; double: uniform; log: base^uniform(minval, maxval);
// categorical: uniform choice; const: its value. Deterministic given rng state.
Value sample(const Space& space, Rng& rng);

// The values a single parameter takes on a grid, as in the manual: int with
// count >= the number of integers in range gives every integer; otherwise
// `count` evenly spaced points including both ends (rounded for int);
// count 1 gives the midpoint. Categorical: its vals; const: its val.
// Precondition: count present for int/double/log.
std::vector<Value> grid_values(const Hyperparameter& param);

// The cartesian product of grid_values over every leaf, as JSON objects in a
// stable order (keys in name order, first key varying slowest).
std::vector<Value> grid(const Space& space);

// Seed of the n-th trial of an experiment, reproducible from experiment_seed.
std::uint32_t trial_seed(std::uint32_t experiment_seed, std::uint64_t trial_index);

}  // namespace volador::hparams
