#include "runtime/hparams/flat_space.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/overloaded.hpp"

namespace volador::hparams {
namespace {

Leaf leaf_of(LeafKind kind, double lo, double hi, std::vector<Value> values = {}, double base = 10) {
  Leaf leaf;
  leaf.kind = kind;
  leaf.lo = lo;
  leaf.hi = hi;
  leaf.base = base;
  leaf.values = std::move(values);
  return leaf;
}

Leaf make_leaf(const Hyperparameter& hp) {
  return std::visit(
      Overloaded{
          [](const ConstParam& p) { return leaf_of(LeafKind::constant, 0, 0, {p.val}); },
          [](const IntParam& p) {
            return leaf_of(LeafKind::integer, static_cast<double>(p.minval), static_cast<double>(p.maxval));
          },
          [](const DoubleParam& p) { return leaf_of(LeafKind::real, p.minval, p.maxval); },
          [](const LogParam& p) { return leaf_of(LeafKind::log, p.minval, p.maxval, {}, p.base); },
          [](const CategoricalParam& p) {
            return leaf_of(LeafKind::categorical, 0, static_cast<double>(p.vals.size() - 1), p.vals);
          },
          [](const Space&) { return leaf_of(LeafKind::constant, 0, 0, {Value::object()}); },
      },
      hp.param);
}

Value leaf_value(const Leaf& leaf, double coord) {
  const double x = std::clamp(coord, leaf.lo, leaf.hi);
  switch (leaf.kind) {
    case LeafKind::integer: return static_cast<std::int64_t>(std::llround(x));
    case LeafKind::real: return x;
    case LeafKind::log: return std::pow(leaf.base, x);
    case LeafKind::categorical: return leaf.values[static_cast<std::size_t>(std::lround(x))];
    case LeafKind::constant: break;
  }
  return leaf.values.front();
}

double sample_coord(const Leaf& leaf, Rng& rng) {
  switch (leaf.kind) {
    case LeafKind::integer:
    case LeafKind::categorical:
      return leaf.lo + static_cast<double>(uniform_below(rng, static_cast<std::uint64_t>(leaf.hi - leaf.lo) + 1));
    case LeafKind::real:
    case LeafKind::log: return std::lerp(leaf.lo, leaf.hi, uniform_unit(rng));
    case LeafKind::constant: break;
  }
  return 0;
}

}  // namespace

FlatSpace::FlatSpace(const Space& space) {
  for_each_leaf(space, [&](const std::vector<std::string>& path, const Hyperparameter& hp) {
    leaves_.push_back(make_leaf(hp));
    leaves_.back().path = path;
  });
}

std::vector<double> FlatSpace::sample(Rng& rng) const {
  std::vector<double> coords;
  coords.reserve(leaves_.size());
  for (const auto& leaf : leaves_) coords.push_back(sample_coord(leaf, rng));
  return coords;
}

Value FlatSpace::decode(std::span<const double> coords) const {
  Value out = Value::object();
  for (std::size_t i = 0; i < leaves_.size(); ++i) {
    Value* node = &out;
    for (const auto& key : leaves_[i].path) node = &(*node)[key];
    *node = leaf_value(leaves_[i], coords[i]);
  }
  return out;
}

}  // namespace volador::hparams
