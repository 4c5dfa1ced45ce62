#include "runtime/search/pbt_explore.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/core/overloaded.hpp"

namespace volador::search {
namespace {

// `value` scaled by `factor` and clamped to [lo, hi] (either order).
double scaled(double value, double factor, double lo, double hi) {
  return std::clamp(value * factor, std::min(lo, hi), std::max(lo, hi));
}

// `value` of leaf `param` multiplied by 1 - f or 1 + f; categorical and constant values are kept.
hparams::Value perturb(const hparams::Hyperparameter& param, const hparams::Value& value, double f, hparams::Rng& rng) {
  const auto draw_factor = [&] {
    const bool decrease = hparams::uniform_unit(rng) < 0.5;
    return std::pair{decrease, decrease ? 1 - f : 1 + f};
  };
  return std::visit(
      Overloaded{
          [&](const hparams::IntParam& p) {
            const auto [decrease, factor] = draw_factor();
            const double x = value.get<double>() * factor;
            const double rounded = decrease ? std::floor(x) : std::ceil(x);
            return hparams::Value(static_cast<std::int64_t>(
                std::clamp(rounded, static_cast<double>(p.minval), static_cast<double>(p.maxval))));
          },
          [&](const hparams::DoubleParam& p) {
            return hparams::Value(scaled(value.get<double>(), draw_factor().second, p.minval, p.maxval));
          },
          [&](const hparams::LogParam& p) {
            return hparams::Value(
                scaled(value.get<double>(), draw_factor().second, std::pow(p.base, p.minval), std::pow(p.base, p.maxval)));
          },
          [&](const auto&) { return value; },
      },
      param.param);
}

}  // namespace

hparams::Value explore(const hparams::Space& space, const hparams::Value& parent, const ExploreSettings& settings,
                       hparams::Rng& rng) {
  hparams::Value out = parent;
  hparams::for_each_leaf(space, [&](const std::vector<std::string>& path, const hparams::Hyperparameter& param) {
    nlohmann::json::json_pointer at;
    for (const auto& key : path) at /= key;
    const bool resample = hparams::uniform_unit(rng) < settings.resample_probability || !out.contains(at);
    out[at] = resample ? hparams::sample_one(param, rng) : perturb(param, out[at], settings.perturb_factor, rng);
  });
  return out;
}

}  // namespace volador::search
