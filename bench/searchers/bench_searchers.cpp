// bench_searchers: best-found regret per budget of random, tpe and bayesian on
// Branin, Hartmann-6, Rosenbrock-5, Levy-5 and a mixed space over many seeds;
// the searchers' own speed, with the time of a bayesian suggestion at trial
// 1,000; a 10,000-trial adaptive_asha simulation end to end. A table per part
// and one `RESULT {json}` line per row.
//   bench_searchers [--seeds N] [--budgets 50,100] [--functions branin,...] [--searchers random,tpe,tpe_mv,bayesian]
//                   [--speed 1|0] [--asha-trials N (0: skip)]
//                   [--stopping-trials N (0: skip)]   (early stopping on a learning curve: stopping_bench.hpp)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/searchers/objectives.hpp"
#include "bench/searchers/stats.hpp"
#include "bench/searchers/stopping_bench.hpp"
#include "runtime/search/simulation.hpp"

using namespace volador;
using namespace volador::search;
using namespace volador::search::testing;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::uint32_t seeds = 10;
  std::vector<std::uint32_t> budgets{50, 100};
  std::vector<std::string> functions{"branin", "hartmann6", "rosenbrock5", "levy5", "mixed"};
  std::vector<std::string> searchers{"random", "tpe", "tpe_mv", "bayesian"};
  bool speed = true;
  std::uint32_t asha_trials = 10'000;
  std::uint32_t stopping_trials = 100;
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t at = 0; at < list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--seeds") o.seeds = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--asha-trials") o.asha_trials = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--stopping-trials") o.stopping_trials = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--functions") o.functions = split(value);
    else if (flag == "--searchers") o.searchers = split(value);
    else if (flag == "--speed") o.speed = value != "0";
    else if (flag == "--budgets") {
      o.budgets.clear();
      for (const auto& b : split(value)) o.budgets.push_back(static_cast<std::uint32_t>(std::stoul(b)));
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  return o;
}

TestFunction function_named(const std::string& name) {
  for (auto f : {branin_function(), hartmann6_function(), rosenbrock5_function(), levy5_function(), mixed_function()})
    if (f.name == name) return f;
  throw std::invalid_argument("no function named " + name);
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Search {
  std::vector<double> regret;          // best-so-far regret after each trial
  std::vector<double> trial_seconds;   // per trial: the searcher's time from the previous trial's result to it
};

// The config of a row's searcher: its name, or tpe_mv: tpe with multivariate and bandwidth_factor 0.7.
config::ExperimentConfig row_config(const TestFunction& f, const std::string& searcher, std::uint32_t budget) {
  if (searcher != "tpe_mv") return function_config(f, searcher, budget);
  auto config = function_config(f, "tpe", budget);
  config.searcher.extra = {{"multivariate", true}, {"bandwidth_factor", 0.7}};
  return config;
}

// One search of `budget` trials, one at a time, on the simulated event loop.
// The objective costs nothing, so the time between two evaluations is the
// searcher's (its suggestion and the loop's bookkeeping).
Search search(const TestFunction& f, const std::string& searcher, std::uint32_t budget, std::uint32_t seed) {
  auto s = make_searcher(row_config(f, searcher, budget), seed);
  if (!s) throw std::runtime_error(s.error().message);
  Search out;
  auto last = Clock::now();
  auto sim = simulate(**s, [&](const nlohmann::json& h, RequestId, std::uint64_t) {
    out.trial_seconds.push_back(seconds_since(last));
    const double value = f.value(h);
    last = Clock::now();
    return value;
  });
  if (!sim) throw std::runtime_error(sim.error().message);
  double best = INFINITY;
  for (const auto& t : sim->trials) out.regret.push_back((best = std::min(best, t.metric)) - f.minimum);
  return out;
}

void regret_table(const Options& o) {
  const std::uint32_t budget = *std::ranges::max_element(o.budgets);
  std::printf("\n== Best-found regret (median [25%%, 75%%] over %u seeds), trials one at a time ==\n", o.seeds);
  std::printf("%-12s %-14s %7s %12s %12s %12s %10s %10s\n", "function", "searcher", "budget", "median", "q25", "q75",
              "mean", "s/search");
  for (const auto& name : o.functions) {
    const TestFunction f = function_named(name);
    for (const std::string& searcher : o.searchers) {
      std::vector<std::vector<double>> curves;
      const auto start = Clock::now();
      for (std::uint32_t seed = 1; seed <= o.seeds; ++seed) curves.push_back(search(f, searcher, budget, seed).regret);
      const double per_search = seconds_since(start) / o.seeds;
      for (std::uint32_t b : o.budgets) {
        std::vector<double> at;
        for (const auto& c : curves) at.push_back(c[b - 1]);
        double mean = 0;
        for (double r : at) mean += r / static_cast<double>(at.size());
        const double med = quantile(at, 0.5), q25 = quantile(at, 0.25), q75 = quantile(at, 0.75);
        std::printf("%-12s %-14s %7u %12.4g %12.4g %12.4g %10.4g %10.3f\n", f.name.c_str(), searcher.c_str(), b, med,
                    q25, q75, mean, per_search);
        std::cout << "RESULT "
                  << nlohmann::json{{"bench", "regret"}, {"function", f.name},   {"searcher", searcher},
                                    {"budget", b},       {"seeds", o.seeds},     {"median_regret", med},
                                    {"q25", q25},        {"q75", q75},           {"mean_regret", mean},
                                    {"seconds_per_search_of_" + std::to_string(budget), per_search}}
                                     .dump()
                  << "\n";
      }
    }
  }
}

// Suggestions per second of each searcher over a whole sequential search, and
// the time of its last suggestions (the median of the last 10).
void speed_table() {
  std::printf("\n== Searcher speed: one %s search, trials one at a time ==\n", "Hartmann-6");
  std::printf("%-9s %7s %10s %14s %22s\n", "searcher", "trials", "seconds", "suggestions/s", "ms at the last trial");
  const auto f = hartmann6_function();
  for (const auto& [searcher, trials] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"random", 100000}, {"tpe", 1000}, {"tpe_mv", 1000}, {"bayesian", 100}, {"bayesian", 300},
           {"bayesian", 1000}}) {
    const auto start = Clock::now();
    const Search run = search(f, searcher, trials, 1);
    const double s = seconds_since(start);
    const std::vector<double> tail(run.trial_seconds.end() - 10, run.trial_seconds.end());
    const double last_ms = 1000 * quantile(tail, 0.5);
    std::printf("%-9s %7u %10.3f %14.1f %22.2f\n", searcher.c_str(), trials, s, trials / s, last_ms);
    std::cout << "RESULT "
              << nlohmann::json{{"bench", "speed"}, {"searcher", searcher}, {"function", f.name},
                                {"trials", trials}, {"seconds", s},         {"suggestions_per_second", trials / s},
                                {"ms_per_suggestion_at_last_trials", last_ms}}
                     .dump()
              << "\n";
  }
}

// adaptive_asha with many trials on a learning-curve simulator, end to end.
void asha_run(std::uint32_t trials) {
  config::ExperimentConfig config;
  config.global_batch_size = 1;
  config.hyperparameters = {{"x", {hparams::DoubleParam{0, 1, {}}}}, {"global_batch_size", {hparams::ConstParam{1}}}};
  config.searcher.name = "adaptive_asha";
  config.searcher.metric = "loss";
  config.searcher.max_length = {config::LengthUnit::batches, 10000};
  config.searcher.max_trials = trials;
  config.searcher.max_concurrent_trials = 64;
  const auto curve = [](const nlohmann::json& h, RequestId, std::uint64_t b) {
    const double x = h["x"].get<double>();
    return (x - 0.3) * (x - 0.3) + (0.1 + 0.1 * std::pow(std::sin(7 * x), 2)) * std::exp(-static_cast<double>(b) / 1000.0);
  };
  auto s = make_searcher(config, 1);
  if (!s) throw std::runtime_error(s.error().message);
  const auto start = Clock::now();
  auto sim = simulate(**s, curve);
  const double seconds = seconds_since(start);
  if (!sim) throw std::runtime_error(sim.error().message);
  const auto save_start = Clock::now();
  const std::string state = (*s)->save_state().dump();
  const double save_seconds = seconds_since(save_start);
  double best = INFINITY;
  std::uint64_t finished = 0;
  for (const auto& t : sim->trials)
    if (t.batches == 10000) {
      ++finished;
      best = std::min(best, std::pow(t.hparams["x"].get<double>() - 0.3, 2));
    }
  const double fraction = static_cast<double>(sim->total_batches) / (static_cast<double>(trials) * 10000.0);
  std::printf("\n== adaptive_asha end to end: %u trials, max_length 10000, standard mode, 64 at once ==\n", trials);
  std::printf("%.3f s (%.0f trials/s); %llu trained to max_length; %.1f%% of full training; best final loss %.2e;\n"
              "final state %zu bytes, saved in %.4f s\n",
              seconds, trials / seconds, static_cast<unsigned long long>(finished), 100 * fraction, best,
              state.size(), save_seconds);
  std::cout << "RESULT "
            << nlohmann::json{{"bench", "asha"},         {"trials", trials},          {"seconds", seconds},
                              {"trials_per_second", trials / seconds}, {"finished", finished},
                              {"fraction_of_full_training", fraction}, {"best_final_loss", best},
                              {"state_bytes", state.size()},          {"save_seconds", save_seconds}}
                   .dump()
            << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    regret_table(o);
    if (o.speed) speed_table();
    if (o.asha_trials > 0) asha_run(o.asha_trials);
    if (o.stopping_trials > 0) stopping_table(o.seeds, o.stopping_trials);
  } catch (const std::exception& e) {
    std::cerr << "bench_searchers: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
