#pragma once
// Internal to volador_config: the `searcher:` section.

#include <string>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"

namespace volador::config {

// Reads the searcher; which keys are known depends on its name:
//   single:        name, metric, smaller_is_better, max_length
//   grid:          + max_concurrent_trials, and the extension keys
//   random:        + max_trials (required, > 0)
//   adaptive_asha: + mode, divisor (>= 2), max_rungs (> 0); `adaptive` is
//                  its older name and is stored as adaptive_asha
//   tpe, bayesian: as random, and any other key is kept in `extra`
// The extension keys (early_stopping, goal, max_failed_trials) are kept in
// `extra` for every searcher but single. With no valid name every key is
// known, so that only the name is reported.
SearcherConfig read_searcher(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
