#include "runtime/hparams/sampling.hpp"

#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "runtime/core/overloaded.hpp"

namespace volador::hparams {
namespace {

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

// Number of integers in [minval, maxval] minus one (no overflow).
std::uint64_t int_span(const IntParam& p) {
  return static_cast<std::uint64_t>(p.maxval) - static_cast<std::uint64_t>(p.minval);
}

std::int64_t int_at_offset(const IntParam& p, std::uint64_t offset) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(p.minval) + offset);
}

// The i-th of `count` points evenly spaced over [lo, hi], both ends included;
// the midpoint for count 1.
double spaced(double lo, double hi, std::uint32_t count, std::uint64_t i) {
  return count == 1 ? std::midpoint(lo, hi) : std::lerp(lo, hi, static_cast<double>(i) / (count - 1));
}

Value int_point(const IntParam& p, std::uint64_t i) {
  const std::uint64_t span = int_span(p);
  const std::uint32_t count = p.count.value();
  if (count > span) return int_at_offset(p, i);  // count >= the number of integers: all of them
  if (count == 1) return std::midpoint(p.minval, p.maxval);
  // Spacing span/(count-1) > 1, so the rounded points are distinct.
  const long double exact = static_cast<long double>(span) * i / (count - 1);
  return int_at_offset(p, static_cast<std::uint64_t>(std::roundl(exact)));
}

// Points on the grid axis of a leaf (any parameter but a non-empty nested
// space; an empty one has the single value {}). Computed, never materialised.
std::uint64_t axis_size(const Hyperparameter& leaf) {
  return std::visit(Overloaded{
                        [](const IntParam& p) {
                          const std::uint64_t span = int_span(p);  // + 1 would overflow on the full int64 range
                          return span < p.count.value() ? span + 1 : std::uint64_t{p.count.value()};
                        },
                        [](const DoubleParam& p) { return std::uint64_t{p.count.value()}; },
                        [](const LogParam& p) { return std::uint64_t{p.count.value()}; },
                        [](const CategoricalParam& p) { return std::uint64_t{p.vals.size()}; },
                        [](const auto&) { return std::uint64_t{1}; },  // const, empty space
                    },
                    leaf.param);
}

Value axis_value(const Hyperparameter& leaf, std::uint64_t i) {
  return std::visit(Overloaded{
                        [](const ConstParam& p) { return p.val; },
                        [&](const IntParam& p) { return int_point(p, i); },
                        [&](const DoubleParam& p) { return Value(spaced(p.minval, p.maxval, p.count.value(), i)); },
                        [&](const LogParam& p) {
                          return Value(std::pow(p.base, spaced(p.minval, p.maxval, p.count.value(), i)));
                        },
                        [&](const CategoricalParam& p) { return p.vals[i]; },
                        [](const Space&) { return Value::object(); },
                    },
                    leaf.param);
}

void set_at(Value& root, const std::vector<std::string>& path, const Value& value) {
  Value* node = &root;
  for (const auto& key : path) node = &(*node)[key];
  *node = value;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return (b != 0 && a > kMaxU64 / b) ? kMaxU64 : a * b;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Status validate_grid_counts(const Space& space, const std::string& prefix) {
  for (const auto& [name, hp] : space) {
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    if (const auto* nested = std::get_if<Space>(&hp.param)) {
      if (auto status = validate_grid_counts(*nested, path); !status) return status;
      continue;
    }
    const std::optional<std::uint32_t> count = std::visit(
        Overloaded{[](const IntParam& p) { return p.count; }, [](const DoubleParam& p) { return p.count; },
                   [](const LogParam& p) { return p.count; },
                   [](const auto&) { return std::optional<std::uint32_t>(1); }},
        hp.param);
    if (count.value_or(0) == 0)
      return fail(Error::invalid_argument("hyperparameter " + path + " needs a count > 0 for grid search"));
  }
  return {};
}

}  // namespace

double uniform_unit(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::uint64_t uniform_below(Rng& rng, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;  // 2^64 - threshold is a multiple of n
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

std::string rng_to_text(const Rng& rng) {
  std::ostringstream out;
  out << rng;
  return out.str();
}

Result<Rng> rng_from_text(const std::string& text) {
  std::istringstream in(text);
  Rng rng;
  if (!(in >> rng)) return fail(Error::corruption("random engine state does not decode"));
  return rng;
}

Value sample_one(const Hyperparameter& hp, Rng& rng) {
  return std::visit(
      Overloaded{
          [](const ConstParam& p) { return p.val; },
          [&](const IntParam& p) {
            const std::uint64_t span = int_span(p);
            return Value(int_at_offset(p, span == kMaxU64 ? rng() : uniform_below(rng, span + 1)));
          },
          [&](const DoubleParam& p) { return Value(std::lerp(p.minval, p.maxval, uniform_unit(rng))); },
          [&](const LogParam& p) {
            return Value(std::pow(p.base, std::lerp(p.minval, p.maxval, uniform_unit(rng))));
          },
          [&](const CategoricalParam& p) { return p.vals[uniform_below(rng, p.vals.size())]; },
          [&](const Space& nested) { return sample(nested, rng); },
      },
      hp.param);
}

Value sample(const Space& space, Rng& rng) {
  Value out = Value::object();
  for (const auto& [name, hp] : space) out[name] = sample_one(hp, rng);
  return out;
}

std::vector<Value> grid_values(const Hyperparameter& param) {
  if (const auto* nested = std::get_if<Space>(&param.param)) return grid(*nested);
  std::vector<Value> out;
  for (std::uint64_t i = 0, n = axis_size(param); i < n; ++i) out.push_back(axis_value(param, i));
  return out;
}

Status validate_grid_space(const Space& space) { return validate_grid_counts(space, ""); }

Grid::Grid(const Space& space) {
  for_each_leaf(space, [&](const std::vector<std::string>& path, const Hyperparameter& hp) {
    axes_.push_back({path, hp, axis_size(hp)});
  });
}

std::uint64_t Grid::size() const {
  std::uint64_t n = 1;
  for (const auto& axis : axes_) n = saturating_mul(n, axis.size);
  return n;
}

Value Grid::point(std::uint64_t index) const {
  Value out = Value::object();
  for (auto axis = axes_.rbegin(); axis != axes_.rend(); ++axis) {
    set_at(out, axis->path, axis_value(axis->leaf, index % axis->size));
    index /= axis->size;
  }
  return out;
}

std::vector<Value> grid(const Space& space) {
  const Grid g(space);
  std::vector<Value> out;
  for (std::uint64_t i = 0; i < g.size(); ++i) out.push_back(g.point(i));
  return out;
}

std::uint32_t trial_seed(std::uint32_t experiment_seed, std::uint64_t trial_index) {
  return static_cast<std::uint32_t>(splitmix64(splitmix64(experiment_seed) + trial_index) & 0x7fffffffULL);
}

}  // namespace volador::hparams
