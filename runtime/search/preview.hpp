#pragma once
// preview-search: what a config's search would do, without running anything.
// The search is simulated (simulation.hpp) with a made-up metric: every trial
// reports one uniform random value, the same at every length, drawn from the
// experiment seed. tpe and bayesian are simulated as random search: with such
// metrics their schedule (trials, lengths, stops) is the same, and no model is
// fitted. searcher.goal and searcher.early_stopping are left out of the
// simulation: what they do depends on real metrics, so the preview plans the
// search as if neither were set and the real run may stop sooner (trials
// still validate on the early-stopping ladder, see `validations`). A pbt
// trial started from another's checkpoint trains from that checkpoint's
// length on: its length in `by_length` is where it ended, and only what it
// trained itself counts in `total_batches`. Pure.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "runtime/search/adaptive_asha.hpp"

namespace volador::search {

// Trials whose training ended at `batches`.
struct PreviewLength {
  std::uint64_t batches = 0;
  std::uint64_t trials = 0;
  std::uint64_t stopped_early = 0;
};

struct SearchPreview {
  std::string searcher;
  std::uint64_t max_length_batches = 0;
  std::uint64_t trials = 0;
  std::vector<PreviewLength> by_length;      // ascending
  std::uint64_t total_batches = 0;           // summed over trials
  std::uint32_t max_concurrent_trials = 0;   // most alive at once in the simulation
  std::vector<AshaBracket> brackets;         // adaptive_asha only
  std::vector<std::uint64_t> validations;    // the lengths a trial validates at (the searcher's targets; pbt: round ends)
  std::uint64_t warm_started = 0;            // trials started from another trial's checkpoint (pbt)
  std::vector<std::string> not_simulated;    // the config's keys the simulation ignored, e.g. "searcher.goal"
};

// The preview of `config`'s search with `seed` as experiment seed; the errors
// of make_searcher for a config it refuses.
Result<SearchPreview> preview_search(const config::ExperimentConfig& config, std::uint32_t seed);

// The preview as `preview-search --json` and the HTTP API show it.
nlohmann::json preview_json(const SearchPreview& preview, std::uint32_t seed);

}  // namespace volador::search
