#pragma once
// Drawing concrete hyperparameter values from a Space.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/hparams/space.hpp"

namespace volador::hparams {

// The random engine every sampler uses; its state can be saved as text.
using Rng = std::mt19937_64;

// Uniform in [0, 1) from the top 53 bits of one draw.
double uniform_unit(Rng& rng);
// Uniform in [0, n), n > 0, by rejection (unbiased).
std::uint64_t uniform_below(Rng& rng, std::uint64_t n);
// The engine's full state as text, and back (error: corruption).
std::string rng_to_text(const Rng& rng);
Result<Rng> rng_from_text(const std::string& text);

// One sample: a JSON object mirroring the space's nesting. int: uniform over
// [minval, maxval]; double: uniform; log: base^uniform(minval, maxval);
// categorical: uniform choice; const: its value. Deterministic given rng state,
// and the same on every standard library (no std:: distributions involved).
Value sample(const Space& space, Rng& rng);
// One value of a single parameter, drawn as sample() draws it.
Value sample_one(const Hyperparameter& param, Rng& rng);

// The values a single parameter takes on a grid, as in the manual: int with
// count >= the number of integers in range gives every integer; otherwise
// `count` evenly spaced points including both ends (rounded for int);
// count 1 gives the midpoint. Categorical: its vals; const: its val; a nested
// space: its grid(). Precondition: count present and > 0 for int/double/log.
std::vector<Value> grid_values(const Hyperparameter& param);

// Error (invalid_argument) naming the first int/double/log parameter without a
// count > 0, which grid search cannot enumerate.
Status validate_grid_space(const Space& space);

// The cartesian product of grid_values over every leaf, addressable by index
// without materialising it or any axis: keys in name order, nested keys flattened in
// place, the first leaf varying slowest, the last fastest.
class Grid {
 public:
  explicit Grid(const Space& space);  // precondition: validate_grid_space() passed

  // Number of points; saturates at UINT64_MAX.
  [[nodiscard]] std::uint64_t size() const;
  // The point at `index` (< size()) as a JSON object nested like the space.
  [[nodiscard]] Value point(std::uint64_t index) const;

 private:
  struct Axis {
    std::vector<std::string> path;  // keys from the top of the space to the leaf
    Hyperparameter leaf;            // its values are computed on demand
    std::uint64_t size = 0;
  };
  std::vector<Axis> axes_;
};

// Every point of Grid(space), in index order.
std::vector<Value> grid(const Space& space);

// Seed of the n-th trial of an experiment, reproducible from experiment_seed;
// in 0 .. 2^31-1.
std::uint32_t trial_seed(std::uint32_t experiment_seed, std::uint64_t trial_index);

}  // namespace volador::hparams
