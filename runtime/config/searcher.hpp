#pragma once
// Internal to volador_config: the `searcher:` section.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// The keys of each searcher, and the keys of an early_stopping map.
std::vector<Keys> searcher_key_sets();
Keys early_stopping_keys();

// Reads the searcher; which keys are known depends on its name:
//   single:        name, metric, smaller_is_better, max_length
//   grid:          + max_concurrent_trials, goal (a number),
//                  max_failed_trials (> 0), early_stopping (`median`, or
//                  {rule: median, min_trials, start_step, num_steps}, each > 0;
//                  `median_stop` is accepted for `median`)
//   random:        + max_trials (required, > 0)
//   tpe:           as random, + n_startup_trials (> 0), gamma (in (0, 1]),
//                  n_ei_candidates (> 0), prior_weight (> 0)
//   bayesian:      as random, + n_initial_points (> 0), xi (>= 0), n_candidates (> 0)
//   adaptive_asha: as random but early_stopping (it stops trials itself), +
//                  mode, divisor (>= 2), max_rungs (> 0); `adaptive` is its
//                  older name and is stored as adaptive_asha
// Every key beyond the manual's is stored, checked, in `extra` (as JSON;
// early_stopping as `median` or the map with rule: median). With no valid
// name every key is known, so that only the name is reported.
SearcherConfig read_searcher(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
