#pragma once
// What searchers minimise and how a trial's part in a search ended.

#include <cmath>
#include <limits>

namespace volador::search {

// The loss a searcher minimises: the metric, negated when larger is better;
// NaN counts as the worst possible loss (+inf).
inline double to_loss(double metric, bool smaller_is_better) {
  if (std::isnan(metric)) return std::numeric_limits<double>::infinity();
  return smaller_is_better ? metric : -metric;
}

// finished: trained to max_length; stopped: closed early by the searcher;
// failed: errored or canceled; invalid: exited with invalid hyperparameters.
enum class Ending { finished, stopped, failed, invalid };

// A trial's result: `loss` is its last validation's loss (finished, stopped).
struct Outcome {
  Ending ending = Ending::finished;
  double loss = 0;
};

}  // namespace volador::search
