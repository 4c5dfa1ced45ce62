#pragma once
// Where the sequential searchers (grid, random, tpe, bayesian) get each new
// trial's hyperparameters from, and what they tell it about trials' results.

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/search/outcome.hpp"
#include "runtime/search/searcher.hpp"

namespace volador::search {

class Suggester {
 public:
  virtual ~Suggester() = default;

  // Hyperparameters for trial `id`; called once per trial, in id order.
  virtual nlohmann::json suggest(RequestId id) = 0;
  // Trial `id`, suggested earlier, is done for the search; called once.
  virtual void observe(RequestId id, const Outcome& outcome) {}
  // Whether a trial with invalid hyperparameters is replaced by a new one
  // (samplers can draw another; a grid cannot).
  [[nodiscard]] virtual bool replaces_invalid() const { return true; }

  // The whole state, RNG included; load() leaves it unchanged on error.
  [[nodiscard]] virtual nlohmann::json save() const { return nullptr; }
  virtual Status load(const nlohmann::json& state) { return {}; }
};

}  // namespace volador::search
