#pragma once
// A Space seen as a flat list of leaves with one numeric coordinate each, for
// the model-based searchers (TPE, Gaussian processes). Coordinates: int -> the
// integer, double -> the value, log -> the exponent x (value = base^x),
// categorical -> the index of the choice, const -> 0.

#include <span>
#include <string>
#include <vector>

#include "runtime/hparams/sampling.hpp"
#include "runtime/hparams/space.hpp"

namespace volador::hparams {

enum class LeafKind { constant, integer, real, log, categorical };

struct Leaf {
  std::vector<std::string> path;  // keys from the top of the space to the leaf
  LeafKind kind = LeafKind::constant;
  double lo = 0, hi = 0;          // coordinate range, both ends included (categorical: 0 .. k-1)
  double base = 10;               // log
  std::vector<Value> values;      // categorical: the choices; constant: its one value
};

class FlatSpace {
 public:
  // Leaves in the space's key order, nested keys flattened in place. Int
  // ranges beyond 2^53 lose precision (coordinates are doubles).
  explicit FlatSpace(const Space& space);

  [[nodiscard]] const std::vector<Leaf>& leaves() const { return leaves_; }
  // One coordinate per leaf, uniform over each leaf's values (as sample()).
  [[nodiscard]] std::vector<double> sample(Rng& rng) const;
  // The hyperparameters at `coords` (one per leaf), nested like the space;
  // int and categorical coordinates are rounded, all are clamped to range.
  [[nodiscard]] Value decode(std::span<const double> coords) const;

 private:
  std::vector<Leaf> leaves_;
};

}  // namespace volador::hparams
