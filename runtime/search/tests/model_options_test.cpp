// Each option of tpe and bayesian, set in the searcher section, changes the
// suggestions as its README entry says.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "runtime/search/simulation.hpp"
#include "runtime/search/tests/standard_functions.hpp"

using namespace volador;
using namespace volador::search;
using namespace volador::search::testing;
using nlohmann::json;

namespace {

// x and y in [0, 1], best at (0.3, 0.7).
double bowl(const json& h) {
  return std::pow(h.at("x").get<double>() - 0.3, 2) + std::pow(h.at("y").get<double>() - 0.7, 2);
}

TestFunction bowl_function() {
  return {"bowl", {{"x", real(0, 1)}, {"y", real(0, 1)}, {"global_batch_size", {hparams::ConstParam{1}}}}, 0, bowl};
}

// One categorical of four letters: a is best, d worst.
double letter_rank(const json& h) { return static_cast<double>(h.at("letter").get<std::string>()[0] - 'a'); }

TestFunction letters_function() {
  return {"letters",
          {{"letter", {hparams::CategoricalParam{{"a", "b", "c", "d"}}}}, {"global_batch_size", {hparams::ConstParam{1}}}},
          0,
          letter_rank};
}

// The hyperparameters of each of `budget` trials, in order, of `searcher` with the options `extra` on `f`, one
// trial at a time.
std::vector<json> suggestions(const TestFunction& f, const std::string& searcher, const json& extra,
                              std::uint32_t budget, std::uint32_t seed = 3) {
  auto config = function_config(f, searcher, budget);
  config.searcher.extra = extra;
  auto made = make_searcher(config, seed);
  REQUIRE(made.has_value());
  auto simulated = simulate(**made, [&](const json& h, RequestId, std::uint64_t) { return f.value(h); });
  REQUIRE(simulated.has_value());
  std::vector<json> out;
  for (const auto& trial : simulated->trials) out.push_back(trial.hparams);
  return out;
}

// `options` with `more` set.
json with(json options, const json& more) {
  options.update(more);
  return options;
}

// The share of trials after the first `skip` of each search that chose letter a, over searches with seeds 1 to `seeds`.
double share_of_a(const json& extra, std::uint32_t skip, std::uint32_t budget, std::uint32_t seeds) {
  std::size_t a = 0, all = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    const auto trials = suggestions(letters_function(), "tpe", extra, budget, seed);
    for (std::size_t i = skip; i < trials.size(); ++i, ++all) a += trials[i]["letter"] == "a";
  }
  return static_cast<double>(a) / static_cast<double>(all);
}

// The mean distance of each trial after the first `skip` of a bayesian search of the bowl to the nearest earlier
// one, over searches with seeds 1 to `seeds`.
double mean_novelty(const json& extra, std::uint32_t skip, std::uint32_t budget, std::uint32_t seeds) {
  double sum = 0;
  std::size_t n = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    const auto trials = suggestions(bowl_function(), "bayesian", extra, budget, seed);
    for (std::size_t i = skip; i < trials.size(); ++i, ++n) {
      double nearest = 2;
      for (std::size_t j = 0; j < i; ++j)
        nearest = std::min(nearest, std::hypot(trials[i]["x"].get<double>() - trials[j]["x"].get<double>(),
                                               trials[i]["y"].get<double>() - trials[j]["y"].get<double>()));
      sum += nearest;
    }
  }
  return sum / static_cast<double>(n);
}

// One categorical of 20 choices (0 .. 19), best at 7.
double choice_distance(const json& h) { return std::abs(h.at("choice").get<double>() - 7); }

TestFunction choices_function() {
  std::vector<hparams::Value> values;
  for (int i = 0; i < 20; ++i) values.push_back(i);
  return {"choices", {{"choice", {hparams::CategoricalParam{values}}}, {"global_batch_size", {hparams::ConstParam{1}}}},
          0, choice_distance};
}

// The share of trials after the first `skip` of each bayesian search of the 20 choices that repeat an earlier
// trial's choice, over searches with seeds 1 to `seeds`.
double share_repeated(const json& extra, std::uint32_t skip, std::uint32_t budget, std::uint32_t seeds) {
  std::size_t repeated = 0, all = 0;
  for (std::uint32_t seed = 1; seed <= seeds; ++seed) {
    const auto trials = suggestions(choices_function(), "bayesian", extra, budget, seed);
    for (std::size_t i = skip; i < trials.size(); ++i, ++all)
      repeated += std::any_of(trials.begin(), trials.begin() + static_cast<std::ptrdiff_t>(i),
                              [&](const json& t) { return t["choice"] == trials[i]["choice"]; });
  }
  return static_cast<double>(repeated) / static_cast<double>(all);
}

}  // namespace

TEST_CASE("tpe's n_startup_trials and bayesian's n_initial_points: k random draws, then the model", "[search][model]") {
  for (const auto& [searcher, key] : {std::pair{"tpe", "n_startup_trials"}, std::pair{"bayesian", "n_initial_points"}}) {
    for (std::uint32_t k : {3, 6}) {
      INFO(searcher << " with " << key << " " << k);
      const auto random = suggestions(bowl_function(), "random", json::object(), k + 1);
      const auto after_k = suggestions(bowl_function(), searcher, {{key, k}}, k + 1);
      const auto after_k_plus_1 = suggestions(bowl_function(), searcher, {{key, k + 1}}, k + 1);
      // The random searcher's draws from the same seed, up to the k-th trial; then the model's suggestion.
      CHECK(std::equal(random.begin(), random.begin() + k, after_k.begin()));
      CHECK(after_k[k] != random[k]);
      CHECK(after_k_plus_1 == random);
    }
  }
}

TEST_CASE("tpe's gamma: with every result counted as good the model no longer favours the best choice",
          "[search][model]") {
  // Of the 22 model-made trials of each of 10 searches. With gamma 0.1 the 1 to 3 good trials are all a; Optuna's
  // smoothing (prior_weight / (n + 1) on every choice per observation) keeps b, c and d drawn at times.
  const json startup{{"n_startup_trials", 8}};
  CHECK(share_of_a(startup, 8, 30, 10) > 0.6);  // gamma 0.1, the default
  CHECK(share_of_a(with(startup, {{"gamma", 0.5}}), 8, 30, 10) > 0.8);
  CHECK(share_of_a(with(startup, {{"gamma", 1.0}}), 8, 30, 10) < 0.4);
}

TEST_CASE("tpe's n_ei_candidates: one candidate is a draw from the good density, more are weighed against the bad one",
          "[search][model]") {
  const json startup{{"n_startup_trials", 8}};
  const double one = share_of_a(with(startup, {{"n_ei_candidates", 1}}), 8, 30, 20);
  const double default_24 = share_of_a(startup, 8, 30, 20);
  CHECK(default_24 > one + 0.1);
  CHECK(default_24 > 0.6);
}

TEST_CASE("tpe's prior_weight: a heavier uniform prior spreads the suggestions over every choice", "[search][model]") {
  // One candidate per suggestion: the choice is a draw from the good density, prior included.
  const json one_draw{{"n_startup_trials", 8}, {"n_ei_candidates", 1}};
  CHECK(share_of_a(with(one_draw, {{"prior_weight", 0.01}}), 8, 30, 10) > 0.95);
  const double uniform = share_of_a(with(one_draw, {{"prior_weight", 100.0}}), 8, 30, 10);
  CHECK(uniform > 0.15);  // a quarter of the draws, as for random search
  CHECK(uniform < 0.35);
}

TEST_CASE("tpe's bandwidth_factor: narrower kernels put the suggestions nearer the best trial so far",
          "[search][model]") {
  // The mean distance of each model-made trial of the bowl to the best trial before it, over 10 searches.
  const auto mean_step = [](const json& extra) {
    double sum = 0;
    std::size_t n = 0;
    for (std::uint32_t seed = 1; seed <= 10; ++seed) {
      const auto trials = suggestions(bowl_function(), "tpe", extra, 40, seed);
      for (std::size_t i = 10; i < trials.size(); ++i, ++n) {
        std::size_t best = 0;
        for (std::size_t j = 1; j < i; ++j) best = bowl(trials[j]) < bowl(trials[best]) ? j : best;
        sum += std::hypot(trials[i]["x"].get<double>() - trials[best]["x"].get<double>(),
                          trials[i]["y"].get<double>() - trials[best]["y"].get<double>());
      }
    }
    return sum / static_cast<double>(n);
  };
  for (const json& base : {json::object(), json{{"multivariate", true}}}) {
    INFO(base.dump());
    CHECK(mean_step(with(base, {{"bandwidth_factor", 0.2}})) < 0.7 * mean_step(base));
  }
}

TEST_CASE("bayesian's xi: a larger improvement margin explores farther from the trials so far", "[search][model]") {
  const json options{{"n_initial_points", 5}, {"n_candidates", 200}};
  const double exploit = mean_novelty(with(options, {{"xi", 0.0}}), 5, 12, 6);
  const double explore = mean_novelty(with(options, {{"xi", 10.0}}), 5, 12, 6);
  CHECK(explore > 1.5 * exploit);
}

TEST_CASE("bayesian's n_candidates: the random candidates are what lets the acquisition reach untried choices",
          "[search][model]") {
  // With one random candidate the others are perturbations of the best results, which decode to tried choices.
  const json options{{"n_initial_points", 6}, {"xi", 1.0}};
  CHECK(share_repeated(with(options, {{"n_candidates", 1}}), 6, 10, 6) > 0.25);
  CHECK(share_repeated(with(options, {{"n_candidates", 200}}), 6, 10, 6) == 0);
}
