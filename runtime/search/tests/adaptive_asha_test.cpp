#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/search/adaptive_asha.hpp"
#include "runtime/search/simulation.hpp"

using namespace volador;
using namespace volador::search;
using nlohmann::json;

namespace {

std::vector<std::vector<std::uint64_t>> rungs_of(const AshaPlan& plan) {
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& b : plan.brackets) out.push_back(b.rungs);
  return out;
}

std::vector<std::uint64_t> trials_of(const AshaPlan& plan) {
  std::vector<std::uint64_t> out;
  for (const auto& b : plan.brackets) out.push_back(b.trials);
  return out;
}

AshaPlan plan(const std::string& mode, std::uint32_t max_trials, std::uint32_t cap = 0, std::uint32_t divisor = 4,
              std::uint64_t max_length = 1000, std::uint32_t max_rungs = 5) {
  auto p = plan_asha({mode, divisor, max_rungs, max_length, max_trials, cap});
  REQUIRE(p.has_value());
  return *p;
}

config::ExperimentConfig asha_config(std::uint32_t max_trials, std::uint32_t cap, std::uint32_t divisor,
                                     std::uint64_t max_length, std::string mode = "aggressive") {
  config::ExperimentConfig config;
  config.global_batch_size = 1;
  config.hyperparameters = {{"x", {hparams::DoubleParam{0, 1, {}}}}, {"global_batch_size", {hparams::ConstParam{1}}}};
  config.searcher.name = "adaptive_asha";
  config.searcher.metric = "loss";
  config.searcher.max_length = {config::LengthUnit::batches, max_length};
  config.searcher.max_trials = max_trials;
  config.searcher.max_concurrent_trials = cap;
  config.searcher.divisor = divisor;
  config.searcher.mode = std::move(mode);
  return config;
}

std::unique_ptr<Searcher> build(const config::ExperimentConfig& config, std::uint32_t seed = 1) {
  auto s = make_searcher(config, seed);
  REQUIRE(s.has_value());
  return std::move(*s);
}

Simulation run(Searcher& s, const MetricFunction& metric) {
  auto sim = simulate(s, metric);
  REQUIRE(sim.has_value());
  return *sim;
}

}  // namespace

TEST_CASE("asha plan: rungs max_length / d^k, brackets by mode, trials split by budget", "[search][asha]") {
  // R = min(5, 1 + log4(1000) = 5, 1 + log4(100) = 4) = 4.
  const AshaPlan aggressive = plan("aggressive", 100);
  CHECK(rungs_of(aggressive) == std::vector<std::vector<std::uint64_t>>{{15, 62, 250, 1000}});
  CHECK(trials_of(aggressive) == std::vector<std::uint64_t>{100});
  CHECK(aggressive.max_concurrent_trials == 100);  // 1 * max(100, 4)

  const AshaPlan standard = plan("standard", 100);
  CHECK(rungs_of(standard) ==
        std::vector<std::vector<std::uint64_t>>{{15, 62, 250, 1000}, {62, 250, 1000}, {250, 1000}});
  CHECK(trials_of(standard) == std::vector<std::uint64_t>{70, 22, 8});  // weights 16, 16/3, 2
  CHECK(standard.max_concurrent_trials == 24);                          // 3 * max(8, 4)

  const AshaPlan conservative = plan("conservative", 100, 10);
  CHECK(rungs_of(conservative).back() == std::vector<std::uint64_t>{1000});
  CHECK(trials_of(conservative) == std::vector<std::uint64_t>{67, 21, 8, 4});
  CHECK(conservative.max_concurrent_trials == 10);

  CHECK(rungs_of(plan("aggressive", 1000, 0, 4, 1000, 2)) == std::vector<std::vector<std::uint64_t>>{{250, 1000}});
  CHECK(rungs_of(plan("aggressive", 1000, 0, 3, 5)) == std::vector<std::vector<std::uint64_t>>{{1, 5}});
  CHECK(rungs_of(plan("standard", 1, 0)) == std::vector<std::vector<std::uint64_t>>{{1000}});
  CHECK_FALSE(plan_asha({"wild", 4, 5, 1000, 100, 0}).has_value());
  CHECK_FALSE(plan_asha({"standard", 1, 5, 1000, 100, 0}).has_value());
}

TEST_CASE("asha modes: aggressive one bracket, standard the upper half, conservative all", "[search][asha]") {
  // bench/searchers' learning curves: 81 epochs, 100 trials, R = min(5, 1 + log4(81) = 4, 1 + log4(100) = 4) = 4.
  const auto bench_rungs = [](const std::string& mode) { return rungs_of(plan(mode, 100, 1, 4, 81)); };
  CHECK(bench_rungs("aggressive") == std::vector<std::vector<std::uint64_t>>{{1, 5, 20, 81}});
  CHECK(bench_rungs("standard") == std::vector<std::vector<std::uint64_t>>{{1, 5, 20, 81}, {5, 20, 81}, {20, 81}});
  CHECK(bench_rungs("conservative") ==
        std::vector<std::vector<std::uint64_t>>{{1, 5, 20, 81}, {5, 20, 81}, {20, 81}, {81}});
  // R = 5 (max_rungs): 1, 3 (5, 4, 3) and 5 brackets, as Determined's adaptive ASHA.
  for (const auto& [mode, brackets] : std::vector<std::pair<std::string, std::size_t>>{
           {"aggressive", 1}, {"standard", 3}, {"conservative", 5}}) {
    const AshaPlan p = plan(mode, 1000, 0, 4, 1024);
    CHECK(p.brackets.size() == brackets);
    CHECK(p.brackets.front().rungs.size() == 5);
    CHECK(p.brackets.back().rungs.size() == 6 - brackets);
  }
}

TEST_CASE("asha: promotions and stops at each rung exactly as specified", "[search][asha]") {
  // Divisor 2, rungs 2, 4, 8; eight trials at once with constant losses.
  const std::vector<double> loss{5, 3, 8, 1, 7, 2, 6, 4};
  auto config = asha_config(8, 8, 2, 8);
  config.searcher.max_rungs = 3;
  auto searcher = build(config);
  const Simulation sim = run(*searcher, [&](const json&, RequestId id, std::uint64_t) { return loss[id - 1]; });
  std::map<RequestId, std::pair<std::uint64_t, bool>> got;
  for (const auto& t : sim.trials) got[t.id] = {t.batches, t.stopped_early};
  // Trial 1, the reference, trains to 8 and is recorded at no rung.
  // Rung 2: 2 (first), 4 (top 1 of 3), 6 (top 2 of 5) continue; 3, 5, 7, 8 (4th of 7) stop.
  // Rung 4: 2, 4 continue (each in the top max(n/2, 1) when it arrives); 6 ranks 2nd of 3 and stops.
  const std::map<RequestId, std::pair<std::uint64_t, bool>> expected{
      {1, {8, false}}, {2, {8, false}}, {3, {2, true}}, {4, {8, false}},
      {5, {2, true}},  {6, {4, true}},  {7, {2, true}}, {8, {2, true}}};
  CHECK(got == expected);
  CHECK(sim.total_batches == 36);
  CHECK_FALSE(sim.failure);
}

TEST_CASE("asha: larger-is-better metrics rank the other way", "[search][asha]") {
  const std::vector<double> loss{5, 3, 8, 1, 7, 2, 6, 4};
  auto config = asha_config(8, 8, 2, 8);
  config.searcher.max_rungs = 3;
  config.searcher.smaller_is_better = false;
  auto searcher = build(config);
  const Simulation sim = run(*searcher, [&](const json&, RequestId id, std::uint64_t) { return -loss[id - 1]; });
  std::vector<std::uint64_t> batches;
  for (const auto& t : sim.trials) batches.push_back(t.batches);
  CHECK(batches == std::vector<std::uint64_t>{8, 8, 2, 8, 2, 4, 2, 2});
}

TEST_CASE("asha: a stopped trial is replaced until max_trials, the cap holds", "[search][asha]") {
  auto searcher = build(asha_config(40, 4, 2, 16));
  const Simulation sim = run(*searcher, [](const json& h, RequestId, std::uint64_t) { return h["x"].get<double>(); });
  CHECK(sim.trials.size() == 40);
  CHECK(sim.max_alive == 4);
  const auto finished = std::ranges::count_if(sim.trials, [](const auto& t) { return t.batches == 16; });
  CHECK(finished >= 1);
  CHECK(std::ranges::all_of(sim.trials, [](const auto& t) { return t.stopped_early == (t.batches < 16); }));
}

TEST_CASE("asha: brackets share the concurrency, fewest alive first", "[search][asha]") {
  auto searcher = build(asha_config(100, 6, 4, 1000, "standard"));
  std::vector<std::uint64_t> first_targets;
  for (const auto& op : searcher->initial_operations()) {
    const auto id = std::get<CreateTrial>(op).request_id;
    first_targets.push_back(std::get<ValidateAfter>(searcher->on_trial_created(id).at(0)).batches);
  }
  CHECK(first_targets == std::vector<std::uint64_t>{15, 62, 250, 15, 62, 250});
  // Trial 3 (third bracket) finishing frees a slot that goes back to that bracket.
  CHECK(searcher->on_validation_completed(3, 0.5, 250) == Operations{ValidateAfter{3, 1000}});  // first there
  const auto close = searcher->on_validation_completed(3, 0.5, 1000);
  CHECK(close == Operations{CloseTrial{3, false}});
  const auto next = searcher->on_trial_closed(3);
  REQUIRE(next.size() == 1);
  CHECK(std::get<ValidateAfter>(searcher->on_trial_created(std::get<CreateTrial>(next[0]).request_id).at(0)).batches ==
        250);
}

TEST_CASE("asha: errored trials rank last at their rung, invalid ones are replaced", "[search][asha]") {
  auto searcher = build(asha_config(6, 6, 2, 4));  // rungs 1, 2, 4
  CHECK(searcher->initial_operations().size() == 6);
  for (RequestId id = 1; id <= 6; ++id) CHECK(searcher->on_trial_created(id) == Operations{ValidateAfter{id, 1}});
  CHECK(searcher->on_validation_completed(1, 9.0, 1) == Operations{ValidateAfter{1, 2}});  // the reference
  CHECK(searcher->on_validation_completed(2, 5.0, 1) == Operations{ValidateAfter{2, 2}});
  CHECK(searcher->on_validation_completed(3, 3.0, 1) == Operations{ValidateAfter{3, 2}});
  CHECK(searcher->on_trial_exited_early(6, ExitReason::errored).empty());  // +inf at rung 1: {3, 5, inf}
  // 4.0 ranks 2nd of 4, in the top max(4/2, 1) = 2 only because the errored trial counts.
  CHECK(searcher->on_validation_completed(4, 4.0, 1) == Operations{ValidateAfter{4, 2}});
  const auto replaced = searcher->on_trial_exited_early(5, ExitReason::invalid_hparams);
  REQUIRE(replaced.size() == 1);
  CHECK(std::get<CreateTrial>(replaced[0]).request_id == 7);
  CHECK(searcher->on_trial_created(7) == Operations{ValidateAfter{7, 1}});
}

TEST_CASE("asha: the first trial is a reference that trains to max_length and is recorded at no rung",
          "[search][asha]") {
  // Optuna's SuccessiveHalvingPruner (min_resource "auto") prunes nothing before a trial has completed, so
  // trials one at a time train the first fully and the next ones, alone at the rungs, further than here before.
  const auto config = asha_config(5, 5, 2, 4);  // rungs 1, 2, 4
  auto searcher = build(config);
  searcher->initial_operations();
  for (RequestId id = 1; id <= 5; ++id) searcher->on_trial_created(id);
  // An invalid first trial passes the reference on to its replacement.
  const auto replaced = searcher->on_trial_exited_early(1, ExitReason::invalid_hparams);
  REQUIRE(replaced.size() == 1);
  CHECK(std::get<CreateTrial>(replaced[0]).request_id == 6);
  CHECK(searcher->on_trial_created(6) == Operations{ValidateAfter{6, 1}});
  CHECK(searcher->on_validation_completed(6, 100.0, 1) == Operations{ValidateAfter{6, 2}});  // worst, goes on

  // The flag survives a master restart: a fresh searcher loaded from the state goes on alike.
  auto restored = build(config);
  REQUIRE(restored->load_state(json::parse(searcher->save_state().dump())).has_value());
  // Rung 1 holds no loss of the reference: 1.0 is alone there; 2.0 is then 2nd of 2 and stops.
  CHECK(restored->on_validation_completed(2, 1.0, 1) == Operations{ValidateAfter{2, 2}});
  CHECK(restored->on_validation_completed(3, 2.0, 1) == Operations{CloseTrial{3, true}});
  CHECK(restored->on_validation_completed(6, 100.0, 2) == Operations{ValidateAfter{6, 4}});
  CHECK(restored->on_validation_completed(6, 100.0, 4) == Operations{CloseTrial{6, false}});
}

TEST_CASE("asha: a state saved before reference trials existed goes on without one", "[search][asha]") {
  const auto config = asha_config(6, 5, 2, 4);  // rungs 1, 2, 4; five at once
  auto searcher = build(config);
  searcher->initial_operations();
  for (RequestId id = 1; id <= 5; ++id) searcher->on_trial_created(id);
  json old = searcher->save_state();
  old["method"].erase("reference_created");
  for (auto& place : old["method"]["places"]) place.erase(3);
  auto restored = build(config);
  REQUIRE(restored->load_state(old).has_value());
  // Trial 1 is an ordinary trial there: recorded at rung 1, it stops trial 2 behind it.
  CHECK(restored->on_validation_completed(1, 1.0, 1) == Operations{ValidateAfter{1, 2}});
  CHECK(restored->on_validation_completed(2, 2.0, 1) == Operations{CloseTrial{2, true}});
  // Nor is a trial created after the restart a reference: the worst at rung 1, it stops.
  const auto next = restored->on_trial_closed(2);
  REQUIRE(next.size() == 1);
  CHECK(std::get<CreateTrial>(next[0]).request_id == 6);
  CHECK(restored->on_trial_created(6) == Operations{ValidateAfter{6, 1}});
  CHECK(restored->on_validation_completed(6, 9.0, 1) == Operations{CloseTrial{6, true}});
}

TEST_CASE("asha on a learning-curve simulator: near-best result for a fraction of random search's training",
          "[search][asha]") {
  // Final loss (x - 0.3)^2; curves converge at x-dependent speeds, so early ranks are imperfect.
  const auto curve = [](const json& h, RequestId, std::uint64_t b) {
    const double x = h["x"].get<double>();
    const double speed = 0.1 + 0.1 * std::pow(std::sin(7 * x), 2);
    return (x - 0.3) * (x - 0.3) + speed * std::exp(-static_cast<double>(b) / 100.0);
  };
  const auto final_loss = [](const SimulatedTrial& t) { return std::pow(t.hparams["x"].get<double>() - 0.3, 2); };
  std::vector<double> asha_units, random_units, asha_best, random_best;
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    auto asha = build(asha_config(200, 16, 4, 1000, "standard"), seed);
    const Simulation a = run(*asha, curve);
    auto random_config = asha_config(200, 16, 4, 1000);
    random_config.searcher.name = "random";
    auto random = build(random_config, seed);
    const Simulation r = run(*random, curve);
    asha_units.push_back(static_cast<double>(a.total_batches));
    random_units.push_back(static_cast<double>(r.total_batches));
    double best_a = 1e9, best_r = 1e9;
    for (const auto& t : a.trials)
      if (t.batches == 1000) best_a = std::min(best_a, final_loss(t));
    for (const auto& t : r.trials) best_r = std::min(best_r, final_loss(t));
    asha_best.push_back(best_a);
    random_best.push_back(best_r);
  }
  std::ranges::sort(asha_units);
  std::ranges::sort(asha_best);
  std::ranges::sort(random_best);
  WARN("asha: median units " << asha_units[5] << " vs random " << random_units[0] << "; median best final loss "
                             << asha_best[5] << " vs random " << random_best[5]);
  CHECK(asha_units.back() < 0.35 * random_units.front());
  CHECK(asha_best[5] < 1e-3);
}
