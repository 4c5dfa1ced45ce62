#pragma once
// `adaptive_asha`: asynchronous successive halving, stopping-based, over
// brackets chosen by `mode` (Determined's adaptive_asha with stop_once).
//
// Plan (plan_asha): R = min(max_rungs, 1 + floor(log_d max_length),
// 1 + floor(log_d max_trials)) with d = divisor. Brackets by their number of
// rungs: aggressive {R}; standard {R, R-1, ..., floor((R-1)/2)+1};
// conservative {R, ..., 1}, most aggressive first. A bracket with r rungs
// validates at max(floor(max_length / d^(r-1-k)), 1) batches, k = 0..r-1.
// Trials are split so every bracket gets about the same total training:
// bracket i gets max(floor(T * w_i / sum w), 1) of T = max_trials, w_i =
// d^(r_i-1) / r_i, the remainder going to the first bracket.
//
// Search: the search's first trial is a reference: it trains to max_length
// (validating at its bracket's rungs) and is recorded at no rung, as Optuna's
// SuccessiveHalvingPruner, which prunes nothing before a trial has completed;
// on bench/searchers' crossing curves this cuts aggressive's regret by about
// a third for one more full trial. Every other trial trains to its bracket's
// first rung. At a rung a trial
// continues to the next one only if its loss ranks in the top
// max(floor(n / d), 1) of the n losses recorded at that rung so far
// (its own included; ties favour the newcomer); otherwise it is stopped early
// (CloseTrial with stopped_early) and a new trial takes its place while
// trials remain. A trial at the top rung finishes. max_concurrent_trials is
// shared: a free slot goes to the bracket with the fewest alive trials among
// those with trials left to create (ties: the more aggressive); 0 means
// Determined's default, brackets * max(trials of the last bracket, d), at
// most max_trials. A trial that errors counts as the worst loss at the rung
// it was training to; one with invalid hyperparameters is forgotten and
// replaced in its bracket.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/searcher_base.hpp"

namespace volador::search {

struct AshaBracket {
  std::vector<std::uint64_t> rungs;  // batches at each rung, increasing; the last is max_length
  std::uint64_t trials = 0;
};

struct AshaPlan {
  std::vector<AshaBracket> brackets;     // most aggressive (most rungs) first
  std::uint32_t max_concurrent_trials = 0;  // > 0
};

struct AshaSettings {
  std::string mode = "standard";  // aggressive | standard | conservative
  std::uint32_t divisor = 4;      // >= 2
  std::uint32_t max_rungs = 5;    // >= 1
  std::uint64_t max_length_batches = 0;  // > 0
  std::uint32_t max_trials = 0;          // > 0
  std::uint32_t max_concurrent_trials = 0;
};

// The brackets and concurrency described above; error (invalid_argument) for
// an unknown mode or a setting out of range.
Result<AshaPlan> plan_asha(const AshaSettings& settings);

class AdaptiveAshaSearcher final : public SearcherBase {
 public:
  // `base.trials` and `base.max_concurrent_trials` are taken from `plan`.
  AdaptiveAshaSearcher(BaseSettings base, AshaPlan plan, std::uint32_t divisor, hparams::Space space);

 private:
  struct Ranked {
    double loss = 0;
    RequestId id = 0;
  };
  struct Bracket {
    std::vector<std::vector<Ranked>> rungs;  // losses recorded at each rung, ascending
    std::uint64_t trials = 0, created = 0;
    std::uint32_t alive = 0;
  };
  struct Place {
    std::uint32_t bracket = 0;
    std::uint32_t rung = 0;   // the rung it trains towards
    bool reference = false;   // the search's first trial: trains to max_length, recorded at no rung
  };

  nlohmann::json next_hparams(RequestId id) override;
  std::uint64_t first_target(RequestId id) override;
  Verdict judge(RequestId id, double loss, std::uint64_t batches) override;
  void trial_ended(RequestId id, Ending ending) override;
  [[nodiscard]] bool replaces(ExitReason reason) const override { return reason == ExitReason::invalid_hparams; }
  [[nodiscard]] nlohmann::json save_method() const override;
  Status load_method(const nlohmann::json& state) override;

  // The bracket a new trial joins.
  [[nodiscard]] std::uint32_t pick_bracket() const;
  // Inserts a loss into a rung; its rank there.
  static std::size_t record(std::vector<Ranked>& rung, double loss, RequestId id);

  AshaPlan plan_;
  std::uint32_t divisor_;
  hparams::Space space_;
  hparams::Rng rng_;
  std::vector<Bracket> brackets_;
  std::map<RequestId, Place> places_;  // alive trials
  bool reference_created_ = false;     // a reference trial was created (and not replaced as invalid)
};

}  // namespace volador::search
