// TPE and the Gaussian process against random search at equal budgets on
// Branin and Hartmann-6: the median best-found regret over 20 fixed seeds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "runtime/search/simulation.hpp"
#include "runtime/search/tests/standard_functions.hpp"

using namespace volador;
using namespace volador::search;
using namespace volador::search::testing;

namespace {

constexpr std::uint32_t kSeeds = 20;

// Best value found by `searcher` on `f` within `budget` trials, minus the optimum.
double regret(const TestFunction& f, const std::string& searcher, std::uint32_t budget, std::uint32_t seed) {
  auto s = make_searcher(function_config(f, searcher, budget), seed);
  REQUIRE(s.has_value());
  auto sim = simulate(**s, [&](const nlohmann::json& h, RequestId, std::uint64_t) { return f.value(h); });
  REQUIRE(sim.has_value());
  REQUIRE(sim->trials.size() == budget);
  double best = sim->trials.front().metric;
  for (const auto& t : sim->trials) best = std::min(best, t.metric);
  return best - f.minimum;
}

double median_regret(const TestFunction& f, const std::string& searcher, std::uint32_t budget) {
  std::vector<double> regrets;
  for (std::uint32_t seed = 1; seed <= kSeeds; ++seed) regrets.push_back(regret(f, searcher, budget, seed));
  std::ranges::sort(regrets);
  return (regrets[kSeeds / 2 - 1] + regrets[kSeeds / 2]) / 2;
}

void compare(const TestFunction& f, const std::string& searcher, std::uint32_t budget, double factor) {
  const auto start = std::chrono::steady_clock::now();
  const double model = median_regret(f, searcher, budget);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double random = median_regret(f, "random", budget);
  WARN(searcher << " on " << f.name << ", " << budget << " trials: median regret " << model << " vs random " << random
                << " (" << seconds << " s for " << kSeeds << " searches)");
  CHECK(model < factor * random);
}

}  // namespace

TEST_CASE("tpe beats random on Branin", "[search][model][tpe]") { compare(branin_function(), "tpe", 80, 0.5); }
TEST_CASE("tpe beats random on Hartmann-6", "[search][model][tpe]") { compare(hartmann6_function(), "tpe", 60, 0.7); }
TEST_CASE("bayesian beats random on Branin", "[search][model][bayesian]") {
  compare(branin_function(), "bayesian", 25, 0.2);
}
TEST_CASE("bayesian beats random on Hartmann-6", "[search][model][bayesian]") {
  compare(hartmann6_function(), "bayesian", 30, 0.5);
}
