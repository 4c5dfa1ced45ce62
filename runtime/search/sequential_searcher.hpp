#pragma once
// grid, random, tpe and bayesian: trials one after another (up to the
// concurrency cap), hyperparameters from a Suggester, each trained to
// max_length and closed. With early stopping, trials validate at `num_steps`
// evenly spaced lengths up to max_length and the median stopping rule may
// stop them at any of those from the `start_step`-th on.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/search/median_stopping.hpp"
#include "runtime/search/searcher_base.hpp"
#include "runtime/search/suggester.hpp"

namespace volador::search {

struct SequentialSettings {
  std::uint64_t max_length_batches = 0;  // > 0
  std::optional<MedianStoppingOptions> early_stopping;
};

class SequentialSearcher final : public SearcherBase {
 public:
  // `kind` names the searcher in saved state; `suggester` is not null.
  SequentialSearcher(std::string kind, const BaseSettings& base, const SequentialSettings& settings,
                     std::unique_ptr<Suggester> suggester);

  // The lengths every trial validates at, increasing, ending at max_length.
  [[nodiscard]] const std::vector<std::uint64_t>& ladder() const { return ladder_; }

 private:
  nlohmann::json next_hparams(RequestId id) override { return suggester_->suggest(id); }
  std::uint64_t first_target(RequestId) override { return ladder_.front(); }
  Verdict judge(RequestId id, double loss, std::uint64_t batches) override;
  void trial_ended(RequestId id, Ending ending) override;
  [[nodiscard]] bool replaces(ExitReason reason) const override;
  [[nodiscard]] nlohmann::json save_method() const override;
  Status load_method(const nlohmann::json& state) override;

  std::vector<std::uint64_t> ladder_;
  std::unique_ptr<Suggester> suggester_;
  std::optional<MedianStoppingRule> rule_;
  std::map<RequestId, double> last_loss_;  // open trials that validated at a target
};

// `num_steps` lengths ceil(max_length * k / num_steps), k = 1..num_steps, without repeats.
std::vector<std::uint64_t> validation_ladder(std::uint64_t max_length, std::uint32_t num_steps);

}  // namespace volador::search
