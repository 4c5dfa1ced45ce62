#include "runtime/hparams/sampling.hpp"

#include <cmath>
#include <limits>
#include <numeric>

namespace volador::hparams {
namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

// Uniform in [0, 1) from the top 53 bits of one draw.
double unit_interval(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Uniform in [0, n), n > 0, by rejection (unbiased).
std::uint64_t below(Rng& rng, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;  // 2^64 - threshold is a multiple of n
  for (;;) {
    const std::uint64_t x = rng();
    if (x >= threshold) return x % n;
  }
}

// Number of integers in [minval, maxval] minus one (no overflow).
std::uint64_t int_span(const IntParam& p) {
  return static_cast<std::uint64_t>(p.maxval) - static_cast<std::uint64_t>(p.minval);
}

std::int64_t int_at_offset(const IntParam& p, std::uint64_t offset) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(p.minval) + offset);
}

Value sample_param(const Hyperparameter& hp, Rng& rng) {
  return std::visit(
      Overloaded{
          [](const ConstParam& p) { return p.val; },
          [&](const IntParam& p) {
            const std::uint64_t span = int_span(p);
            return Value(int_at_offset(p, span == kMaxU64 ? rng() : below(rng, span + 1)));
          },
          [&](const DoubleParam& p) { return Value(std::lerp(p.minval, p.maxval, unit_interval(rng))); },
          [&](const LogParam& p) {
            return Value(std::pow(p.base, std::lerp(p.minval, p.maxval, unit_interval(rng))));
          },
          [&](const CategoricalParam& p) { return p.vals[below(rng, p.vals.size())]; },
          [&](const Space& nested) { return sample(nested, rng); },
      },
      hp.param);
}

// `count` points evenly spaced over [lo, hi] including both ends; the midpoint for count 1.
std::vector<double> linspace(double lo, double hi, std::uint32_t count) {
  if (count == 1) return {std::midpoint(lo, hi)};
  std::vector<double> out;
  for (std::uint32_t i = 0; i < count; ++i) out.push_back(std::lerp(lo, hi, static_cast<double>(i) / (count - 1)));
  return out;
}

std::vector<Value> int_grid(const IntParam& p) {
  const std::uint64_t span = int_span(p);
  const std::uint32_t count = p.count.value();
  std::vector<Value> out;
  if (count > span) {  // count >= the number of integers: all of them
    for (std::uint64_t off = 0; off <= span; ++off) out.emplace_back(int_at_offset(p, off));
  } else if (count == 1) {
    out.emplace_back(std::midpoint(p.minval, p.maxval));
  } else {
    // Spacing span/(count-1) > 1, so the rounded points are distinct.
    for (std::uint32_t i = 0; i < count; ++i) {
      const long double exact = static_cast<long double>(span) * i / (count - 1);
      out.emplace_back(int_at_offset(p, static_cast<std::uint64_t>(std::roundl(exact))));
    }
  }
  return out;
}

template <class Transform>
std::vector<Value> float_grid(double lo, double hi, std::uint32_t count, Transform transform) {
  std::vector<Value> out;
  for (double x : linspace(lo, hi, count)) out.emplace_back(transform(x));
  return out;
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

Value sample(const Space& space, Rng& rng) {
  Value out = Value::object();
  for (const auto& [name, hp] : space) out[name] = sample_param(hp, rng);
  return out;
}

std::vector<Value> grid_values(const Hyperparameter& param) {
  return std::visit(
      Overloaded{
          [](const ConstParam& p) { return std::vector<Value>{p.val}; },
          [](const IntParam& p) { return int_grid(p); },
          [](const DoubleParam& p) { return float_grid(p.minval, p.maxval, p.count.value(), std::identity{}); },
          [](const LogParam& p) {
            return float_grid(p.minval, p.maxval, p.count.value(), [&](double x) { return std::pow(p.base, x); });
          },
          [](const CategoricalParam& p) { return p.vals; },
          [](const Space& nested) { return grid(nested); },
      },
      param.param);
}

Status validate_grid_space(const Space& space) { return validate_grid_counts(space, ""); }

Grid::Grid(const Space& space) {
  std::vector<std::string> path;
  add_axes(space, path);
}

void Grid::add_axes(const Space& space, std::vector<std::string>& path) {
  for (const auto& [name, hp] : space) {
    path.push_back(name);
    const auto* nested = std::get_if<Space>(&hp.param);
    if (nested && !nested->empty()) {
      add_axes(*nested, path);
    } else {
      axes_.push_back({path, nested ? std::vector<Value>{Value::object()} : grid_values(hp)});
    }
    path.pop_back();
  }
}

std::uint64_t Grid::size() const {
  std::uint64_t n = 1;
  for (const auto& axis : axes_) n = saturating_mul(n, axis.values.size());
  return n;
}

Value Grid::point(std::uint64_t index) const {
  Value out = Value::object();
  for (auto axis = axes_.rbegin(); axis != axes_.rend(); ++axis) {
    const std::uint64_t radix = axis->values.size();
    set_at(out, axis->path, axis->values[index % radix]);
    index /= radix;
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
