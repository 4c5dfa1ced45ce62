#pragma once
// Standard optimisation test functions as searcher metrics (smaller is
// better), with the spaces they are defined on, for tests and benchmarks.

#include <array>
#include <cmath>
#include <numbers>
#include <string>

#include "runtime/config/experiment_config.hpp"

namespace volador::search::testing {

struct TestFunction {
  std::string name;
  hparams::Space space;  // global_batch_size included
  double minimum = 0;
  double (*value)(const nlohmann::json& hparams) = nullptr;
};

inline hparams::Hyperparameter real(double lo, double hi) { return {hparams::DoubleParam{lo, hi, {}}}; }

// Branin-Hoo on [-5, 10] x [0, 15]; three global minima of 0.397887.
inline double branin(const nlohmann::json& h) {
  const double x1 = h.at("x1").get<double>(), x2 = h.at("x2").get<double>();
  const double pi = std::numbers::pi;
  const double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
  return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

// Hartmann-6 on [0, 1]^6; global minimum -3.32237.
inline double hartmann6(const nlohmann::json& h) {
  static constexpr std::array<double, 4> alpha{1.0, 1.2, 3.0, 3.2};
  static constexpr double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                     {0.05, 10, 17, 0.1, 8, 14},
                                     {3, 3.5, 1.7, 10, 17, 8},
                                     {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double p[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                     {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                     {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                     {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      const double x = h.at("x" + std::to_string(j + 1)).get<double>();
      inner += a[i][j] * (x - p[i][j]) * (x - p[i][j]);
    }
    sum += alpha[i] * std::exp(-inner);
  }
  return -sum;
}

inline TestFunction branin_function() {
  return {"branin", {{"x1", real(-5, 10)}, {"x2", real(0, 15)}, {"global_batch_size", {hparams::ConstParam{1}}}},
          0.397887, branin};
}

inline TestFunction hartmann6_function() {
  hparams::Space space{{"global_batch_size", {hparams::ConstParam{1}}}};
  for (int j = 1; j <= 6; ++j) space["x" + std::to_string(j)] = real(0, 1);
  return {"hartmann6", space, -3.32237, hartmann6};
}

// A config that searches `f` with `searcher`, one batch per trial, trials one at a time.
inline config::ExperimentConfig function_config(const TestFunction& f, const std::string& searcher,
                                                std::uint32_t budget) {
  config::ExperimentConfig config;
  config.global_batch_size = 1;
  config.hyperparameters = f.space;
  config.searcher.name = searcher;
  config.searcher.metric = "value";
  config.searcher.max_length = {config::LengthUnit::batches, 1};
  config.searcher.max_trials = budget;
  config.searcher.max_concurrent_trials = 1;
  return config;
}

}  // namespace volador::search::testing
