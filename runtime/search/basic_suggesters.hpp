#pragma once
// The suggesters that ignore results: grid points in order, and uniform
// random samples from one seeded RNG stream.

#include <utility>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/suggester.hpp"

namespace volador::search {

// Trial n gets grid point n-1 (single: a grid of one point).
class GridSuggester final : public Suggester {
 public:
  explicit GridSuggester(hparams::Grid grid) : grid_(std::move(grid)) {}
  nlohmann::json suggest(RequestId id) override { return grid_.point(id - 1); }
  [[nodiscard]] bool replaces_invalid() const override { return false; }

 private:
  hparams::Grid grid_;
};

// hparams::sample() from an RNG seeded with the experiment seed.
class RandomSuggester final : public Suggester {
 public:
  RandomSuggester(hparams::Space space, std::uint32_t seed) : space_(std::move(space)), rng_(seed) {}
  nlohmann::json suggest(RequestId) override { return hparams::sample(space_, rng_); }
  [[nodiscard]] nlohmann::json save() const override { return {{"rng", hparams::rng_to_text(rng_)}}; }
  Status load(const nlohmann::json& state) override;

 private:
  hparams::Space space_;
  hparams::Rng rng_;
};

}  // namespace volador::search
