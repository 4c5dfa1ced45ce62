#include "runtime/search/searcher_options.hpp"

#include <cmath>
#include <limits>
#include <string>

namespace volador::search {
namespace {

using nlohmann::json;

Error bad(const std::string& key, const std::string& expected, const json& got) {
  return Error::invalid_argument("searcher." + key + ": expected " + expected + ", got " + got.dump());
}

// Sets `out` from `object[key]` when present: an integer >= `min`.
Status read_count(const json& object, const std::string& prefix, const char* key, std::uint32_t min,
                  std::uint32_t& out) {
  if (!object.contains(key)) return {};
  const json& v = object.at(key);
  const bool ok = v.is_number_integer() && v.get<std::int64_t>() >= min &&
                  v.get<std::int64_t>() <= std::numeric_limits<std::uint32_t>::max();
  if (!ok) return fail(bad(prefix + key, "an integer of at least " + std::to_string(min), v));
  out = v.get<std::uint32_t>();
  return {};
}

// Sets `out` from `object[key]` when present: a finite number in [lo, hi]
// (lo excluded when `open_lo`).
Status read_real(const json& object, const std::string& prefix, const char* key, double lo, bool open_lo, double hi,
                 double& out) {
  if (!object.contains(key)) return {};
  const json& v = object.at(key);
  const double x = v.is_number() ? v.get<double>() : std::nan("");
  if (!std::isfinite(x) || x < lo || (open_lo && x == lo) || x > hi)
    return fail(bad(prefix + key, "a number in " + std::string(open_lo ? "(" : "[") + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "]",
                    v));
  out = x;
  return {};
}

// Sets `out` from `object[key]` when present: a boolean.
Status read_flag(const json& object, const std::string& prefix, const char* key, bool& out) {
  if (!object.contains(key)) return {};
  const json& v = object.at(key);
  if (!v.is_boolean()) return fail(bad(prefix + key, "true or false", v));
  out = v.get<bool>();
  return {};
}

Result<MedianStoppingOptions> read_early_stopping(const json& value) {
  MedianStoppingOptions options;
  if (value.is_string() && value == "median") return options;
  if (!value.is_object() || (value.contains("rule") && value.at("rule") != "median"))
    return fail(bad("early_stopping", "median or {rule: median, min_trials, start_step, num_steps}", value));
  const std::string prefix = "early_stopping.";
  for (auto [key, out] : {std::pair{"min_trials", &options.min_trials}, std::pair{"start_step", &options.start_step},
                          std::pair{"num_steps", &options.num_steps}})
    if (auto status = read_count(value, prefix, key, 1, *out); !status) return fail(status.error());
  return options;
}

Status read_limits(const json& extra, SearchLimits& limits) {
  if (extra.contains("goal")) {
    double goal = 0;
    const double inf = std::numeric_limits<double>::max();
    if (auto status = read_real(extra, "", "goal", -inf, false, inf, goal); !status) return status;
    limits.goal = goal;
  }
  if (extra.contains("max_failed_trials")) {
    std::uint32_t max_failed = 0;
    if (auto status = read_count(extra, "", "max_failed_trials", 1, max_failed); !status) return status;
    limits.max_failed_trials = max_failed;
  }
  return {};
}

Status read_tpe(const json& extra, TpeOptions& tpe) {
  for (auto status : {read_count(extra, "", "n_startup_trials", 1, tpe.n_startup_trials),
                      read_real(extra, "", "gamma", 0, true, 1, tpe.gamma),
                      read_count(extra, "", "n_ei_candidates", 1, tpe.n_ei_candidates),
                      read_real(extra, "", "prior_weight", 0, true, 1e6, tpe.prior_weight),
                      read_flag(extra, "", "multivariate", tpe.multivariate),
                      read_real(extra, "", "bandwidth_factor", 0, true, 1, tpe.bandwidth_factor)})
    if (!status) return status;
  return {};
}

Status read_gp(const json& extra, GpOptions& gp) {
  for (auto status : {read_count(extra, "", "n_initial_points", 1, gp.n_initial_points),
                      read_real(extra, "", "xi", 0, false, 1e6, gp.xi),
                      read_count(extra, "", "n_candidates", 1, gp.n_candidates)})
    if (!status) return status;
  return {};
}

}  // namespace

Result<SearcherOptions> read_searcher_options(const config::SearcherConfig& searcher) {
  SearcherOptions options;
  const json& extra = searcher.extra;
  if (auto status = read_limits(extra, options.limits); !status) return fail(status.error());
  if (extra.contains("early_stopping")) {
    auto rule = read_early_stopping(extra.at("early_stopping"));
    if (!rule) return fail(rule.error());
    options.early_stopping = *rule;
  }
  if (searcher.name == "tpe")
    if (auto status = read_tpe(extra, options.tpe); !status) return fail(status.error());
  if (searcher.name == "bayesian")
    if (auto status = read_gp(extra, options.gp); !status) return fail(status.error());
  return options;
}

}  // namespace volador::search
