// make_searcher: searcher name -> implementation, with the checks each needs.

#include <algorithm>
#include <array>
#include <limits>
#include <string_view>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/adaptive_asha.hpp"
#include "runtime/search/basic_suggesters.hpp"
#include "runtime/search/gp_suggester.hpp"
#include "runtime/search/pbt.hpp"
#include "runtime/search/searcher.hpp"
#include "runtime/search/sequential_searcher.hpp"
#include "runtime/search/tpe_suggester.hpp"
#include "runtime/training/lengths.hpp"

namespace volador::search {
namespace {

using SearcherResult = Result<std::unique_ptr<Searcher>>;

// What every builder gets: the config, and the settings read from it.
struct Inputs {
  const config::ExperimentConfig& config;
  BaseSettings base;
  std::uint64_t max_length = 0;
  SearcherOptions options;
};
using Builder = SearcherResult (*)(Inputs&);

SearcherResult sequential(std::string kind, Inputs& in, std::uint64_t trials, std::unique_ptr<Suggester> suggester) {
  in.base.trials = trials;
  return std::make_unique<SequentialSearcher>(std::move(kind), in.base,
                                              SequentialSettings{in.max_length, in.options.early_stopping},
                                              std::move(suggester));
}

SearcherResult make_single(Inputs& in) {
  if (!hparams::is_constant(in.config.hyperparameters))
    return fail(Error::invalid_argument("the single searcher needs constant hyperparameters only"));
  return sequential("single", in, 1, std::make_unique<GridSuggester>(hparams::Grid(in.config.hyperparameters)));
}

SearcherResult make_grid(Inputs& in) {
  if (auto status = hparams::validate_grid_space(in.config.hyperparameters); !status) return fail(status.error());
  hparams::Grid grid(in.config.hyperparameters);
  if (grid.size() == 0) return fail(Error::invalid_argument("the hyperparameter grid is empty"));
  if (grid.size() == std::numeric_limits<std::uint64_t>::max())
    return fail(Error::invalid_argument("the hyperparameter grid has too many points"));
  const std::uint64_t size = grid.size();
  return sequential("grid", in, size, std::make_unique<GridSuggester>(std::move(grid)));
}

Status need_max_trials(const config::SearcherConfig& searcher) {
  if (searcher.max_trials == 0)
    return fail(Error::invalid_argument("the " + searcher.name + " searcher needs searcher.max_trials > 0"));
  return {};
}

SearcherResult make_random(Inputs& in) {
  if (auto status = need_max_trials(in.config.searcher); !status) return fail(status.error());
  return sequential("random", in, in.config.searcher.max_trials,
                    std::make_unique<RandomSuggester>(in.config.hyperparameters, in.base.experiment_seed));
}

SearcherResult make_tpe(Inputs& in) {
  if (auto status = need_max_trials(in.config.searcher); !status) return fail(status.error());
  return sequential("tpe", in, in.config.searcher.max_trials,
                    std::make_unique<TpeSuggester>(in.config.hyperparameters, in.base.experiment_seed, in.options.tpe));
}

SearcherResult make_bayesian(Inputs& in) {
  if (auto status = need_max_trials(in.config.searcher); !status) return fail(status.error());
  return sequential("bayesian", in, in.config.searcher.max_trials,
                    std::make_unique<GpSuggester>(in.config.hyperparameters, in.base.experiment_seed, in.options.gp));
}

SearcherResult make_asha(Inputs& in) {
  const auto& s = in.config.searcher;
  if (auto status = need_max_trials(s); !status) return fail(status.error());
  if (in.options.early_stopping)
    return fail(Error::invalid_argument("searcher.early_stopping: adaptive_asha stops trials itself"));
  auto plan = plan_asha({s.mode, s.divisor, s.max_rungs, in.max_length, s.max_trials, s.max_concurrent_trials});
  if (!plan) return fail(plan.error());
  return std::make_unique<AdaptiveAshaSearcher>(in.base, std::move(*plan), s.divisor, in.config.hyperparameters);
}

SearcherResult make_pbt(Inputs& in) {
  auto plan = plan_pbt(in.config);
  if (!plan) return fail(plan.error());
  return std::make_unique<PbtSearcher>(std::move(*plan), in.config.hyperparameters, in.base.experiment_seed);
}

constexpr std::array<std::pair<std::string_view, Builder>, 7> kBuilders{{
    {"single", make_single},
    {"grid", make_grid},
    {"random", make_random},
    {"tpe", make_tpe},
    {"bayesian", make_bayesian},
    {"adaptive_asha", make_asha},
    {"pbt", make_pbt},
}};

}  // namespace

Result<std::uint64_t> max_length_in_batches(const config::ExperimentConfig& config) {
  const auto& length = config.searcher.max_length;
  // A command may have no global_batch_size (config/cross_field_rules.hpp): its lengths are then in batches.
  if (config.global_batch_size == 0 && length.unit != config::LengthUnit::batches)
    return fail(Error::invalid_argument("searcher.max_length in records or epochs needs a global_batch_size"));
  if (length.value == 0) return fail(Error::invalid_argument("searcher.max_length must be > 0"));
  if (length.unit == config::LengthUnit::epochs && !config.records_per_epoch)
    return fail(Error::invalid_argument("searcher.max_length in epochs needs records_per_epoch"));
  return training::to_batches(length, config.global_batch_size, config.records_per_epoch);
}

Result<std::unique_ptr<Searcher>> make_searcher(const config::ExperimentConfig& config,
                                                std::uint32_t experiment_seed) {
  const std::string name = config.searcher.name == "adaptive" ? "adaptive_asha" : config.searcher.name;
  const auto builder = std::ranges::find(kBuilders, name, [](const auto& entry) { return entry.first; });
  if (builder == kBuilders.end()) return fail(Error::invalid_argument("unknown searcher " + name));
  const auto max_length = max_length_in_batches(config);
  if (!max_length) return fail(max_length.error());
  auto options = read_searcher_options(config.searcher);
  if (!options) return fail(options.error());
  Inputs in{config,
            {.max_concurrent_trials = config.searcher.max_concurrent_trials,
             .smaller_is_better = config.searcher.smaller_is_better,
             .limits = options->limits,
             .experiment_seed = experiment_seed},
            *max_length,
            std::move(*options)};
  return builder->second(in);
}

}  // namespace volador::search
