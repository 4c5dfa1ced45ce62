#include "bench/searchers/stopping_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/searchers/objectives.hpp"
#include "bench/searchers/stats.hpp"
#include "runtime/search/simulation.hpp"

namespace volador::search::testing {
namespace {

// A searcher configuration of the table; `baseline` names the row without
// stopping whose regret at the same epochs it is compared with.
struct Row {
  std::string label;
  std::string searcher;
  std::string mode;  // adaptive_asha only
  nlohmann::json extra = nlohmann::json::object();
  std::string baseline;
  std::uint32_t population = 0;  // pbt only: population_size, 9 rounds of 9 epochs
};

// Where a trial's curve starts: at `epoch` with transient part `transient`
// (0 and 1 for a fresh trial; a pbt copy starts where its parent is, on its
// own curve's speed from there), so its loss at e is
// plateau(h) + transient * exp(-speed(h) * (e - epoch)).
struct CurveStart {
  std::uint64_t epoch = 0;
  double transient = 1;
  double speed = 0;
};

// One search: the best regret so far after each validation, against the epochs trained so far.
struct Run {
  std::vector<std::pair<std::uint64_t, double>> curve;
  std::uint64_t epochs = 0;
  std::uint32_t stopped = 0;
};

// The regret of the best validation reported within `epochs` epochs (infinite before the first).
double regret_within(const Run& run, std::uint64_t epochs) {
  double regret = INFINITY;
  for (const auto& [at, best] : run.curve) {
    if (at > epochs) break;
    regret = best;
  }
  return regret;
}

config::ExperimentConfig curve_config(const CurveObjective& c, const Row& row, std::uint32_t trials) {
  auto config = function_config({c.name, curve_space(), c.minimum, nullptr}, row.searcher, trials);  // its space
  config.searcher.max_length = {config::LengthUnit::batches, kCurveEpochs};
  if (row.population > 0) {
    config.searcher.max_trials = config.searcher.max_concurrent_trials = 0;
    config.searcher.pbt = {.population_size = row.population,
                           .num_rounds = 9,
                           .length_per_round = {config::LengthUnit::batches, kCurveEpochs / 9},
                           .truncate_fraction = 0.2,
                           .resample_probability = 0.2,
                           .perturb_factor = 0.2};
  }
  if (!row.mode.empty()) config.searcher.mode = row.mode;
  config.searcher.extra = row.extra;
  return config;
}

Run run_curve(const CurveObjective& c, const Row& row, std::uint32_t trials, std::uint32_t seed) {
  auto searcher = make_searcher(curve_config(c, row, trials), seed);
  if (!searcher) throw std::runtime_error(row.label + ": " + searcher.error().message);
  Run run;
  std::map<RequestId, std::uint64_t> trained;
  std::map<RequestId, CurveStart> starts;
  const auto created = [&](const SimulatedTrial& t) {
    CurveStart& start = starts[t.id];
    start.speed = curve_speed(c, t.hparams);
    if (t.warm_start_from) {
      const CurveStart& parent = starts.at(*t.warm_start_from);
      start.epoch = t.start_batches;
      start.transient = parent.transient * std::exp(-parent.speed * static_cast<double>(start.epoch - parent.epoch));
    }
    trained[t.id] = start.epoch;
  };
  double best = INFINITY;
  const auto metric = [&](const nlohmann::json& h, RequestId id, std::uint64_t epoch) {
    const CurveStart& start = starts.at(id);
    const double loss =
        curve_plateau(h) + start.transient * std::exp(-start.speed * static_cast<double>(epoch - start.epoch));
    run.epochs += epoch - std::exchange(trained[id], epoch);
    best = std::min(best, loss);
    run.curve.emplace_back(run.epochs, best - c.minimum);
    return loss;
  };
  auto sim = simulate(**searcher, metric, created);
  if (!sim) throw std::runtime_error(row.label + ": " + sim.error().message);
  run.stopped = static_cast<std::uint32_t>(std::ranges::count_if(sim->trials, &SimulatedTrial::stopped_early));
  return run;
}

std::vector<Row> rows() {
  const nlohmann::json median = {{"early_stopping", "median"}};
  const nlohmann::json median3 = {{"early_stopping", {{"rule", "median"}, {"start_step", 3}}}};
  return {{"random", "random", "", {}, ""},
          {"tpe", "tpe", "", {}, ""},
          {"random+median", "random", "", median, "random"},
          {"random+median_s3", "random", "", median3, "random"},
          {"tpe+median", "tpe", "", median, "tpe"},
          {"tpe+median_s3", "tpe", "", median3, "tpe"},
          {"asha_aggressive", "adaptive_asha", "aggressive", {}, "random"},
          {"asha_standard", "adaptive_asha", "standard", {}, "random"},
          {"asha_conservative", "adaptive_asha", "conservative", {}, "random"},
          {"pbt_10", "pbt", "", {}, "random", 10},
          {"pbt_20", "pbt", "", {}, "random", 20}};
}

void print_row(const CurveObjective& c, const Row& row, const std::vector<Run>& runs, const std::vector<Run>* baseline, std::uint32_t trials) {
  std::vector<double> epochs, stopped, regret, at700, same;
  for (std::size_t seed = 0; seed < runs.size(); ++seed) {
    const Run& run = runs[seed];
    epochs.push_back(static_cast<double>(run.epochs));
    stopped.push_back(run.stopped);
    regret.push_back(run.curve.back().second);
    at700.push_back(regret_within(run, 700));
    same.push_back(baseline ? regret_within((*baseline)[seed], run.epochs) : regret.back());
  }
  const double full = static_cast<double>(trials * kCurveEpochs);
  const double saved = 1 - quantile(epochs, 0.5) / full;
  std::printf("%-11s %-18s %7.0f [%5.0f, %5.0f] %5.0f%% %7.0f %10.3g [%9.3g, %9.3g] %10.3g %10.3g %-7s\n", c.name.c_str(),
              row.label.c_str(), quantile(epochs, 0.5), quantile(epochs, 0.25), quantile(epochs, 0.75), 100 * saved,
              quantile(stopped, 0.5), quantile(regret, 0.5), quantile(regret, 0.25), quantile(regret, 0.75),
              quantile(at700, 0.5), quantile(same, 0.5), row.baseline.c_str());
  std::cout << "RESULT "
            << nlohmann::json{{"bench", "stopping"},
                              {"function", c.name},
                              {"searcher", row.label},
                              {"trials", trials},
                              {"seeds", runs.size()},
                              {"median_epochs", quantile(epochs, 0.5)},
                              {"saved_fraction", saved},
                              {"median_stopped", quantile(stopped, 0.5)},
                              {"median_regret", quantile(regret, 0.5)},
                              {"q25", quantile(regret, 0.25)},
                              {"q75", quantile(regret, 0.75)},
                              {"median_regret_at_700_epochs", quantile(at700, 0.5)},
                              {"baseline", row.baseline},
                              {"median_baseline_regret_at_same_epochs", quantile(same, 0.5)}}
                   .dump()
            << "\n";
}

}  // namespace

void stopping_table(std::uint32_t seeds, std::uint32_t trials) {
  std::printf("\n== Early stopping on the learning-curve objectives: %u trials of at most %llu epochs, one at a time, "
              "median [25%%, 75%%] over %u seeds ==\n",
              trials, static_cast<unsigned long long>(kCurveEpochs), seeds);
  std::printf("%-11s %-18s %22s %6s %7s %32s %10s %10s %-7s\n", "function", "searcher", "epochs", "saved", "stopped", "regret",
              "@700 ep", "baseline", "(same epochs, no stopping)");
  for (const CurveObjective& c : curve_objectives()) {
    std::map<std::string, std::vector<Run>> done;
    for (const Row& row : rows()) {
      auto& runs = done[row.label];
      for (std::uint32_t seed = 1; seed <= seeds; ++seed) runs.push_back(run_curve(c, row, trials, seed));
      print_row(c, row, runs, row.baseline.empty() ? nullptr : &done.at(row.baseline), trials);
    }
  }
}

}  // namespace volador::search::testing
