#pragma once
// The median stopping rule, like with like: a trial is stopped at step s when
// its best loss up to s is strictly worse than the median of the other
// trials' best losses up to s. "Other trials" are those that reported at s or
// later (running, finished or stopped), as in Ray Tune.
// Vizier (Golovin et al., 2017) and Ray Tune compare with the median of the
// others' running averages up to s instead; on decreasing learning curves a
// running average lags far behind the trial's own latest loss, so that rule
// almost never stops anything (issue 18: 1 trial of 100). Optuna's
// MedianPruner compares with the others' values at s, the same as their best
// on decreasing curves (but counts completed trials only).
// Pure: losses in, decisions out; every trial reports at the same steps.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/search/searcher.hpp"

namespace volador::search {

class MedianStoppingRule {
 public:
  // Decides from `start_batches` on, when at least `min_trials` others reached the step.
  MedianStoppingRule(std::uint32_t min_trials, std::uint64_t start_batches);

  // Records trial `id`'s loss at `batches` (increasing per trial) and says
  // whether to stop it there.
  bool report(RequestId id, std::uint64_t batches, double loss);
  // Forgets a trial whose results do not count (invalid hyperparameters).
  void forget(RequestId id) { curves_.erase(id); }

  [[nodiscard]] nlohmann::json save() const;
  Status load(const nlohmann::json& state);

 private:
  struct Point {
    std::uint64_t batches = 0;
    double loss = 0;
  };
  using Curve = std::vector<Point>;
  // Best (lowest) loss of `curve` up to `batches`, if it reached `batches`.
  static std::optional<double> best_up_to(const Curve& curve, std::uint64_t batches);

  std::uint32_t min_trials_;
  std::uint64_t start_batches_;
  std::map<RequestId, Curve> curves_;
};

}  // namespace volador::search
