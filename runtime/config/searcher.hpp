#pragma once
// Internal to volador_config: the `searcher:` section.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// The keys of each searcher, of an early_stopping map, and of pbt's
// replace_function and explore_function maps.
std::vector<Keys> searcher_key_sets();
Keys early_stopping_keys();
Keys replace_function_keys();
Keys explore_function_keys();

// Reads the searcher; which keys are known depends on its name:
//   single:        name, metric, smaller_is_better, max_length
//   grid:          + max_concurrent_trials, goal (a number),
//                  max_failed_trials (> 0), early_stopping (`median`, or
//                  {rule: median, min_trials, start_step, num_steps}, each > 0;
//                  `median_stop` is accepted for `median`)
//   random:        + max_trials (required, > 0)
//   tpe:           as random, + n_startup_trials (> 0), gamma (in (0, 1]),
//                  n_ei_candidates (> 0), prior_weight (> 0), multivariate (a boolean),
//                  bandwidth_factor (in (0, 1])
//   bayesian:      as random, + n_initial_points (> 0), xi (>= 0), n_candidates (> 0)
//   adaptive_asha: as random but early_stopping (it stops trials itself), +
//                  mode, divisor (>= 2), max_rungs (> 0); `adaptive` is its
//                  older name and is stored as adaptive_asha
//   pbt:           name, metric, smaller_is_better, population_size (> 0),
//                  num_rounds (> 0), length_per_round (a length),
//                  replace_function: {truncate_fraction (in (0, 0.5], at
//                  least 1 / population_size)}, explore_function:
//                  {resample_probability, perturb_factor (each in [0, 1])},
//                  all required, as Determined's; no max_length: it is set
//                  to length_per_round x num_rounds
// Every key beyond the manual's is stored, checked, in `extra` (as JSON;
// early_stopping as `median` or the map with rule: median). With no valid
// name every key is known, so that only the name is reported.
SearcherConfig read_searcher(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
