#pragma once
// The shared engine of single, grid and random search: every trial trains once
// to max_length, validates, and is closed; subclasses choose how many trials
// there are and their hyperparameters.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/search/searcher.hpp"
#include "runtime/search/trial_book.hpp"

namespace volador::search {

struct FixedLengthSettings {
  std::uint64_t max_length_batches = 0;     // > 0
  std::uint32_t max_concurrent_trials = 0;  // 0 = no cap
  bool smaller_is_better = true;
  std::uint32_t experiment_seed = 0;
};

class FixedLengthSearcher : public Searcher {
 public:
  // The best validation so far (raw metric, as reported).
  struct Best {
    RequestId id = 0;
    double metric = 0;
  };

  Operations initial_operations() override;
  Operations on_trial_created(RequestId id) override;
  Operations on_validation_completed(RequestId id, double metric, std::uint64_t batches) override;
  Operations on_trial_closed(RequestId id) override;
  Operations on_trial_exited_early(RequestId id, ExitReason reason) override;
  [[nodiscard]] double progress() const override;
  [[nodiscard]] nlohmann::json save_state() const override;
  Status load_state(const nlohmann::json& state) override;

  [[nodiscard]] std::optional<Best> best() const { return best_; }

 protected:
  // `kind` names the searcher in saved state; `trials` is the trial budget.
  FixedLengthSearcher(std::string kind, std::uint64_t trials, const FixedLengthSettings& settings);

 private:
  // Hyperparameters of a new trial; called once per trial, in id order.
  virtual nlohmann::json next_hparams(RequestId id) = 0;
  // Whether a trial that ended for `reason` is replaced by a new one.
  [[nodiscard]] virtual bool replaces(ExitReason reason) const { return false; }
  // Generator state beyond the shared bookkeeping (an RNG), for save/load.
  [[nodiscard]] virtual nlohmann::json save_generator() const { return nullptr; }
  virtual Status load_generator(const nlohmann::json& state) { return {}; }

  // New trials up to the budget and cap, then Shutdown when all are done.
  Operations advance();
  void note_metric(RequestId id, double metric);

  std::string kind_;
  FixedLengthSettings settings_;
  TrialBook book_;
  std::optional<Best> best_;
};

}  // namespace volador::search
