#pragma once
// The event handling every searcher shares: the TrialBook, the goal and
// max_failed_trials limits, the best validation, seeds and saved state.
// A searcher supplies hyperparameters, the first length to train, and what
// to do after each validation at a target (train on, finish, stop early).

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/search/outcome.hpp"
#include "runtime/search/searcher.hpp"
#include "runtime/search/searcher_options.hpp"
#include "runtime/search/trial_book.hpp"

namespace volador::search {

struct BaseSettings {
  std::uint64_t trials = 0;                 // the trial budget
  std::uint32_t max_concurrent_trials = 0;  // 0 = no cap
  bool smaller_is_better = true;
  SearchLimits limits;
  std::uint32_t experiment_seed = 0;
};

class SearcherBase : public Searcher {
 public:
  // The best validation so far (raw metric, as reported).
  struct Best {
    RequestId id = 0;
    double metric = 0;
  };
  // What a trial does after validating at its target.
  struct Verdict {
    enum class Kind { train, finish, stop } kind = Kind::finish;
    std::uint64_t batches = 0;  // train: the next target, > the current one
  };

  Operations initial_operations() final;
  Operations on_trial_created(RequestId id) final;
  Operations on_validation_completed(RequestId id, double metric, std::uint64_t batches) final;
  Operations on_trial_closed(RequestId id) final;
  Operations on_trial_exited_early(RequestId id, ExitReason reason) final;
  [[nodiscard]] double progress() const final;
  [[nodiscard]] nlohmann::json save_state() const final;
  Status load_state(const nlohmann::json& state) final;

  [[nodiscard]] std::optional<Best> best() const { return best_; }

 protected:
  // `kind` names the searcher in saved state.
  SearcherBase(std::string kind, const BaseSettings& settings);
  [[nodiscard]] bool smaller_is_better() const { return settings_.smaller_is_better; }

 private:
  // Hyperparameters of new trial `id`; called once per trial, in id order.
  virtual nlohmann::json next_hparams(RequestId id) = 0;
  // The length trial `id` trains to first.
  virtual std::uint64_t first_target(RequestId id) = 0;
  // Trial `id` validated with `loss` at `batches` >= its target.
  virtual Verdict judge(RequestId id, double loss, std::uint64_t batches) = 0;
  // Trial `id` is done for the search; called once per trial.
  virtual void trial_ended(RequestId id, Ending ending) = 0;
  // Whether a trial that exited for `reason` is replaced by a new one.
  [[nodiscard]] virtual bool replaces(ExitReason reason) const { return false; }
  // The searcher's own state beyond the shared bookkeeping, for save/load;
  // load_method leaves the state unchanged when it fails.
  [[nodiscard]] virtual nlohmann::json save_method() const = 0;
  virtual Status load_method(const nlohmann::json& state) = 0;

  // New trials up to the budget and cap, then Shutdown when all are done.
  Operations advance();
  // Closes every open trial and creates no more (goal reached, too many failures).
  Operations end_search(bool failure);
  void note_best(RequestId id, double metric);
  [[nodiscard]] bool reached_goal(double metric) const;

  std::string kind_;
  BaseSettings settings_;
  TrialBook book_;
  std::optional<Best> best_;
};

}  // namespace volador::search
