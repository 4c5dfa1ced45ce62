#pragma once
// Typed settings of the searcher keys beyond the manual (kept in
// SearcherConfig::extra by the config parser, which reports bad ones with
// their location): goal, max_failed_trials, early_stopping, and the knobs of
// tpe and bayesian. Defaults as documented in README.md here.

#include <cstdint>
#include <optional>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"

namespace volador::search {

// End of the search before the budget is spent.
struct SearchLimits {
  std::optional<double> goal;                      // stop once a validation reaches it
  std::optional<std::uint32_t> max_failed_trials;  // give up (failure) when this many errored
};

// The median stopping rule (median_stopping.hpp) on `num_steps` evenly spaced
// validations up to max_length, applied from the `start_step`-th on, once
// `min_trials` other trials have reached that step.
struct MedianStoppingOptions {
  std::uint32_t min_trials = 3;  // >= 1
  std::uint32_t start_step = 4;  // >= 1
  std::uint32_t num_steps = 10;  // >= 1
};

struct TpeOptions {
  std::uint32_t n_startup_trials = 10;  // random trials before the model is used (>= 1)
  double gamma = 0.1;                   // fraction of observations that are "good", in (0, 1]
  std::uint32_t n_ei_candidates = 24;   // candidates drawn from the good density (>= 1)
  double prior_weight = 1.0;            // weight of the uniform prior component (> 0)
  bool multivariate = false;            // one joint density over all hyperparameters rather than one each
  double bandwidth_factor = 1.0;        // scales the kernels' bandwidths, in (0, 1]; below 1 exploits more
};

struct GpOptions {
  std::uint32_t n_initial_points = 10;  // random trials before the model is used (>= 1)
  double xi = 1e-4;                     // EI exploration margin, in standardised loss units (>= 0)
  std::uint32_t n_candidates = 1000;    // random candidates per suggestion (>= 1)
};

struct SearcherOptions {
  SearchLimits limits;
  std::optional<MedianStoppingOptions> early_stopping;
  TpeOptions tpe;
  GpOptions gp;
};

// Reads `searcher.extra`; error (invalid_argument, naming the key) for a key
// of the wrong type or out of range. Keys that do not apply are ignored.
Result<SearcherOptions> read_searcher_options(const config::SearcherConfig& searcher);

}  // namespace volador::search
