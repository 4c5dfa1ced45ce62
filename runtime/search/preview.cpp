#include "runtime/search/preview.hpp"

#include <map>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/searcher_options.hpp"
#include "runtime/search/sequential_searcher.hpp"
#include "runtime/search/simulation.hpp"

namespace volador::search {
namespace {

// The ASHA brackets, or the validation ladder of a sequential searcher.
Status describe_plan(const config::ExperimentConfig& config, SearchPreview& preview) {
  const auto& s = config.searcher;
  if (s.name == "adaptive_asha") {
    auto plan = plan_asha({s.mode, s.divisor, s.max_rungs, preview.max_length_batches, s.max_trials,
                           s.max_concurrent_trials});
    if (!plan) return fail(plan.error());
    preview.brackets = plan->brackets;
    return {};
  }
  auto options = read_searcher_options(s);
  if (!options) return fail(options.error());
  preview.validations = validation_ladder(preview.max_length_batches,
                                          options->early_stopping ? options->early_stopping->num_steps : 1);
  return {};
}

}  // namespace

Result<SearchPreview> preview_search(const config::ExperimentConfig& config, std::uint32_t seed) {
  config::ExperimentConfig simulated = config;
  if (simulated.searcher.name == "tpe" || simulated.searcher.name == "bayesian") simulated.searcher.name = "random";
  auto searcher = make_searcher(simulated, seed);
  if (!searcher) return fail(searcher.error());
  const auto metric = [seed](const nlohmann::json&, RequestId id, std::uint64_t) {
    return static_cast<double>(hparams::trial_seed(seed ^ 0x5eedu, id)) / 2147483648.0;
  };
  auto sim = simulate(**searcher, metric);
  if (!sim) return fail(sim.error());

  SearchPreview preview;
  preview.searcher = config.searcher.name;
  preview.max_length_batches = *max_length_in_batches(config);  // make_searcher checked it
  preview.trials = sim->trials.size();
  preview.total_batches = sim->total_batches;
  preview.max_concurrent_trials = sim->max_alive;
  std::map<std::uint64_t, PreviewLength> lengths;
  for (const auto& t : sim->trials) {
    auto& row = lengths[t.batches];
    row.batches = t.batches;
    ++row.trials;
    row.stopped_early += t.stopped_early;
  }
  for (const auto& [batches, row] : lengths) preview.by_length.push_back(row);
  if (auto status = describe_plan(config, preview); !status) return fail(status.error());
  return preview;
}

}  // namespace volador::search
