#pragma once
// `random`: max_trials trials with hyperparameters sampled from one seeded RNG
// stream, each trained to max_length, at most max_concurrent_trials alive at a
// time (0 = no cap). A trial that exits early counts as done, except one with
// invalid hyperparameters, which is replaced by a fresh sample (Determined).

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/fixed_length_searcher.hpp"

namespace volador::search {

class RandomSearcher final : public FixedLengthSearcher {
 public:
  // The RNG is seeded with settings.experiment_seed.
  RandomSearcher(const FixedLengthSettings& settings, hparams::Space space, std::uint32_t max_trials);

 private:
  nlohmann::json next_hparams(RequestId id) override;
  [[nodiscard]] bool replaces(ExitReason reason) const override;
  [[nodiscard]] nlohmann::json save_generator() const override;
  Status load_generator(const nlohmann::json& state) override;

  hparams::Space space_;
  hparams::Rng rng_;
};

}  // namespace volador::search
