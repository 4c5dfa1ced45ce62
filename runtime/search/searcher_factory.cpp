// make_searcher: searcher name -> implementation, with the checks each needs.

#include <algorithm>
#include <array>
#include <string_view>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/grid_searcher.hpp"
#include "runtime/search/random_searcher.hpp"
#include "runtime/search/searcher.hpp"
#include "runtime/search/single_searcher.hpp"
#include "runtime/training/lengths.hpp"

namespace volador::search {
namespace {

using SearcherResult = Result<std::unique_ptr<Searcher>>;
using Builder = SearcherResult (*)(const config::ExperimentConfig&, const FixedLengthSettings&);

// Names the manual or the seeds define whose algorithms come in later issues.
constexpr std::array<std::string_view, 4> kPlanned{"adaptive_asha", "adaptive", "tpe", "bayesian"};

SearcherResult make_single(const config::ExperimentConfig& config, const FixedLengthSettings& settings) {
  if (!hparams::is_constant(config.hyperparameters))
    return fail(Error::invalid_argument("the single searcher needs constant hyperparameters only"));
  return std::make_unique<SingleSearcher>(settings, config.hyperparameters);
}

SearcherResult make_grid(const config::ExperimentConfig& config, const FixedLengthSettings& settings) {
  if (auto status = hparams::validate_grid_space(config.hyperparameters); !status) return fail(status.error());
  hparams::Grid grid(config.hyperparameters);
  if (grid.size() == 0) return fail(Error::invalid_argument("the hyperparameter grid is empty"));
  if (grid.size() == std::numeric_limits<std::uint64_t>::max())
    return fail(Error::invalid_argument("the hyperparameter grid has too many points"));
  return std::make_unique<GridSearcher>(settings, std::move(grid));
}

SearcherResult make_random(const config::ExperimentConfig& config, const FixedLengthSettings& settings) {
  if (config.searcher.max_trials == 0)
    return fail(Error::invalid_argument("the random searcher needs searcher.max_trials > 0"));
  return std::make_unique<RandomSearcher>(settings, config.hyperparameters, config.searcher.max_trials);
}

constexpr std::array<std::pair<std::string_view, Builder>, 3> kBuilders{{
    {"single", make_single},
    {"grid", make_grid},
    {"random", make_random},
}};

// max_length in batches; errors for inputs the config parser would have refused.
Result<std::uint64_t> max_length_batches(const config::ExperimentConfig& config) {
  const auto& length = config.searcher.max_length;
  if (config.global_batch_size == 0) return fail(Error::invalid_argument("global_batch_size must be > 0"));
  if (length.value == 0) return fail(Error::invalid_argument("searcher.max_length must be > 0"));
  if (length.unit == config::LengthUnit::epochs && !config.records_per_epoch)
    return fail(Error::invalid_argument("searcher.max_length in epochs needs records_per_epoch"));
  return training::to_batches(length, config.global_batch_size, config.records_per_epoch);
}

}  // namespace

Result<std::unique_ptr<Searcher>> make_searcher(const config::ExperimentConfig& config,
                                                std::uint32_t experiment_seed) {
  const std::string& name = config.searcher.name;
  if (std::ranges::find(kPlanned, name) != kPlanned.end())
    return fail(Error::invalid_argument("searcher " + name + " is not available in this build yet"));
  const auto builder = std::ranges::find(kBuilders, name, [](const auto& entry) { return entry.first; });
  if (builder == kBuilders.end()) return fail(Error::invalid_argument("unknown searcher " + name));
  const auto max_length = max_length_batches(config);
  if (!max_length) return fail(max_length.error());
  const FixedLengthSettings settings{.max_length_batches = *max_length,
                                     .max_concurrent_trials = config.searcher.max_concurrent_trials,
                                     .smaller_is_better = config.searcher.smaller_is_better,
                                     .experiment_seed = experiment_seed};
  return builder->second(config, settings);
}

}  // namespace volador::search
