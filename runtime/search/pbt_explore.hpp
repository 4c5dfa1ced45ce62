#pragma once
// pbt's explore step, as Determined's: hyperparameters near a parent's. For
// each leaf of the space, in key order: with probability
// resample_probability it is sampled anew (as random search samples it);
// otherwise an int, double or log value is multiplied by 1 - perturb_factor
// or 1 + perturb_factor (each with probability 1/2; an int rounded down when
// decreased, up when increased) and clamped to its range (log: between
// base^minval and base^maxval), while a categorical or constant value is kept.
// Pure: every draw comes from `rng`.

#include "runtime/hparams/sampling.hpp"

namespace volador::search {

struct ExploreSettings {
  double resample_probability = 0;  // in [0, 1]
  double perturb_factor = 0;        // in [0, 1]
};

// The explored copy of `parent` (a sample of `space`, nested as it is).
hparams::Value explore(const hparams::Space& space, const hparams::Value& parent, const ExploreSettings& settings,
                       hparams::Rng& rng);

}  // namespace volador::search
