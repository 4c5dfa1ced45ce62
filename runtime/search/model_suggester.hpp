#pragma once
// What the model-based suggesters (tpe, bayesian) share: each trial's
// coordinates (hparams::FlatSpace) and result, random suggestions until
// `n_startup` trials have a result, the RNG, and saving all of it.
//
// The model sees finished and stopped trials with their last loss. A stopped
// trial counts as at least as bad as the worst finished one (it was stopped
// for doing worse than its peers); non-finite losses count as the worst
// finite one. Failed trials are ignored, invalid ones forgotten; trials still
// running are passed as `pending` so concurrent suggestions spread out.

#include <cstdint>
#include <map>
#include <vector>

#include "runtime/hparams/flat_space.hpp"
#include "runtime/search/suggester.hpp"

namespace volador::search {

class ModelSuggester : public Suggester {
 public:
  nlohmann::json suggest(RequestId id) final;
  void observe(RequestId id, const Outcome& outcome) final;
  [[nodiscard]] nlohmann::json save() const final;
  Status load(const nlohmann::json& state) final;

 protected:
  // What the model learns from, in trial order.
  struct History {
    std::vector<std::vector<double>> coords;  // one per result
    std::vector<double> losses;               // finite
    std::vector<std::vector<double>> pending;
  };

  ModelSuggester(const hparams::Space& space, std::uint32_t seed, std::uint32_t n_startup);
  [[nodiscard]] const hparams::FlatSpace& space() const { return space_; }
  hparams::Rng& rng() { return rng_; }
  // Rounds int and categorical coordinates and clamps all to their ranges.
  [[nodiscard]] std::vector<double> snap(std::vector<double> coords) const;

 private:
  enum class State { pending, finished, stopped };
  struct Trial {
    std::vector<double> coords;
    State state = State::pending;
    double loss = 0;
  };

  // Coordinates for a new trial given at least n_startup results; `history`
  // has at least one result.
  virtual std::vector<double> propose(const History& history) = 0;
  // State of the model beyond the history (e.g. a warm start), for save/load.
  [[nodiscard]] virtual nlohmann::json save_model() const { return nullptr; }
  virtual Status load_model(const nlohmann::json& state) { return {}; }

  [[nodiscard]] History history() const;

  hparams::FlatSpace space_;
  hparams::Rng rng_;
  std::uint32_t n_startup_;
  std::map<RequestId, Trial> trials_;
};

}  // namespace volador::search
