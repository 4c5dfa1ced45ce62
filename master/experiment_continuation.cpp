#include "master/experiment_continuation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "runtime/core/states.hpp"
#include "runtime/search/searcher_options.hpp"
#include "runtime/search/sequential_searcher.hpp"

namespace volador::master {
namespace {

// The continued trials' hyperparameters, in order.
class ContinuedTrials final : public search::Suggester {
 public:
  explicit ContinuedTrials(std::vector<storage::ContinuedTrial> plan) : plan_(std::move(plan)) {}
  nlohmann::json suggest(search::RequestId id) override { return plan_.at(id - 1).hparams; }
  [[nodiscard]] bool replaces_invalid() const override { return false; }

 private:
  std::vector<storage::ContinuedTrial> plan_;
};

}  // namespace

Result<std::vector<storage::ContinuedTrial>> continuation_plan(const storage::Journal& journal, std::uint64_t source_id) {
  if (source_id == 0) return std::vector<storage::ContinuedTrial>();
  auto source = journal.experiment(source_id);
  if (!source) return fail(source.error());
  if (source->deleting) return fail(Error::not_found(fmt::format("experiment {} is being deleted", source_id)));
  if (!is_terminal(source->state))
    return fail(Error::invalid_argument(fmt::format(
        "experiment {} is {}: only an ended experiment can be continued", source_id, to_string(source->state))));
  auto trials = journal.trials(source_id);
  auto checkpoints = journal.checkpoints_of_experiment(source_id);
  if (!trials) return fail(trials.error());
  if (!checkpoints) return fail(checkpoints.error());
  std::map<std::uint64_t, const storage::CheckpointRecord*> newest;  // by trial
  for (const auto& c : *checkpoints)
    if (c.state == storage::CheckpointState::active && (!newest[c.trial_id] || newest[c.trial_id]->batches <= c.batches))
      newest[c.trial_id] = &c;
  std::vector<storage::ContinuedTrial> plan;
  for (const auto& t : *trials)
    if (const auto* c = newest[t.id])
      plan.push_back({.source_trial_id = t.id, .checkpoint_uuid = c->uuid, .hparams = t.hparams, .seed = t.seed});
  if (plan.empty())
    return fail(Error::invalid_argument(
        fmt::format("experiment {} has no trial with a checkpoint to continue from (fork it to start over)", source_id)));
  return plan;
}

Result<std::unique_ptr<search::Searcher>> experiment_searcher(const std::vector<storage::ContinuedTrial>& plan,
                                                              const config::ExperimentConfig& config,
                                                              std::uint32_t experiment_seed) {
  if (plan.empty()) return search::make_searcher(config, experiment_seed);
  auto max_length = search::max_length_in_batches(config);
  auto options = search::read_searcher_options(config.searcher);
  if (!max_length) return fail(max_length.error());
  if (!options) return fail(options.error());
  const search::BaseSettings base{.trials = plan.size(),
                                  .max_concurrent_trials = config.searcher.max_concurrent_trials,
                                  .smaller_is_better = config.searcher.smaller_is_better,
                                  .limits = options->limits,
                                  .experiment_seed = experiment_seed};
  return std::make_unique<search::SequentialSearcher>("continue", base,
                                                      search::SequentialSettings{*max_length, std::nullopt},
                                                      std::make_unique<ContinuedTrials>(plan));
}

void take_continued_trial(const storage::ExperimentRecord& experiment, storage::TrialRecord& trial) {
  if (trial.request_id == 0 || trial.request_id > experiment.continues.size()) return;
  const auto& source = experiment.continues[trial.request_id - 1];
  trial.seed = source.seed;
  trial.warm_start = source.checkpoint_uuid;
  trial.warm_start_trial = source.source_trial_id;
}

Result<std::optional<Error>> needed_by_continuation(const storage::Journal& journal, std::uint64_t experiment_id,
                                                   std::string_view uuid) {
  auto experiments = journal.experiments();
  if (!experiments) return fail(experiments.error());
  for (const auto& e : *experiments) {
    if (e.continued_from != experiment_id || is_terminal(e.state)) continue;
    const bool uses = uuid.empty() || std::ranges::any_of(e.continues, [&](const auto& c) { return c.checkpoint_uuid == uuid; });
    if (!uses) continue;
    const std::string what = uuid.empty() ? fmt::format("experiment {}", experiment_id) : "checkpoint " + std::string(uuid);
    return std::optional(Error::invalid_argument(fmt::format(
        "{} is where experiment {} ({}) continues from: delete it once that experiment has ended", what, e.id,
        to_string(e.state))));
  }
  return std::optional<Error>();
}

}  // namespace volador::master
