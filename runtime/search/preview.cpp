#include "runtime/search/preview.hpp"

#include <map>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/pbt.hpp"
#include "runtime/search/searcher_options.hpp"
#include "runtime/search/sequential_searcher.hpp"
#include "runtime/search/simulation.hpp"

namespace volador::search {
namespace {

// The ASHA brackets, pbt's round ends, or the validation ladder of a sequential searcher.
Status describe_plan(const config::ExperimentConfig& config, SearchPreview& preview) {
  const auto& s = config.searcher;
  if (s.name == "pbt") {
    auto plan = plan_pbt(config);
    if (!plan) return fail(plan.error());
    preview.validations = plan->round_ends;
    return {};
  }
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

// Keys whose effect depends on real metrics: the made-up metric would reach a
// goal or stop trials at random, so the simulation leaves them out.
constexpr const char* kNotSimulated[] = {"goal", "early_stopping"};

}  // namespace

Result<SearchPreview> preview_search(const config::ExperimentConfig& config, std::uint32_t seed) {
  // The config as given must be valid, keys left out of the simulation included.
  if (auto checked = make_searcher(config, seed); !checked) return fail(checked.error());
  config::ExperimentConfig simulated = config;
  if (simulated.searcher.name == "tpe" || simulated.searcher.name == "bayesian") simulated.searcher.name = "random";
  std::vector<std::string> not_simulated;
  for (const auto* key : kNotSimulated)
    if (simulated.searcher.extra.erase(key) > 0) not_simulated.push_back(std::string("searcher.") + key);
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
  preview.not_simulated = std::move(not_simulated);
  std::map<std::uint64_t, PreviewLength> lengths;
  for (const auto& t : sim->trials) {
    auto& row = lengths[t.batches];
    row.batches = t.batches;
    ++row.trials;
    row.stopped_early += t.stopped_early;
    preview.warm_started += t.warm_start_from.has_value();
  }
  for (const auto& [batches, row] : lengths) preview.by_length.push_back(row);
  if (auto status = describe_plan(config, preview); !status) return fail(status.error());
  return preview;
}

nlohmann::json preview_json(const SearchPreview& p, std::uint32_t seed) {
  nlohmann::json rows = nlohmann::json::array(), brackets = nlohmann::json::array();
  for (const auto& r : p.by_length)
    rows.push_back({{"batches", r.batches}, {"trials", r.trials}, {"stopped_early", r.stopped_early}});
  for (const auto& b : p.brackets) brackets.push_back({{"trials", b.trials}, {"rungs", b.rungs}});
  return {{"searcher", p.searcher},           {"experiment_seed", seed},
          {"max_length_batches", p.max_length_batches}, {"trials", p.trials},
          {"by_length", rows},                {"total_batches", p.total_batches},
          {"max_concurrent_trials", p.max_concurrent_trials}, {"brackets", brackets},
          {"validations", p.validations},    {"warm_started", p.warm_started},
          {"not_simulated", p.not_simulated}};
}

}  // namespace volador::search
