#pragma once
// The objectives of bench_searchers beyond Branin and Hartmann-6 (which are in
// runtime/search/tests/standard_functions.hpp): Rosenbrock-5, Levy-5 and a
// mixed categorical/log/int/float space; a learning-curve objective for early
// stopping. objectives.py holds the same for the Python peers.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "runtime/search/tests/standard_functions.hpp"

namespace volador::search::testing {

inline double coordinate(const nlohmann::json& h, int j) { return h.at("x" + std::to_string(j + 1)).get<double>(); }

// Rosenbrock in 5-d on [-2.048, 2.048]^5; minimum 0 at (1, ..., 1).
inline double rosenbrock5(const nlohmann::json& h) {
  double sum = 0;
  for (int j = 0; j < 4; ++j) {
    const double x = coordinate(h, j), next = coordinate(h, j + 1);
    sum += 100 * (next - x * x) * (next - x * x) + (1 - x) * (1 - x);
  }
  return sum;
}

// Levy in 5-d on [-10, 10]^5; minimum 0 at (1, ..., 1), many local minima.
inline double levy5(const nlohmann::json& h) {
  const double pi = std::numbers::pi;
  std::vector<double> w;
  for (int j = 0; j < 5; ++j) w.push_back(1 + (coordinate(h, j) - 1) / 4);
  double sum = std::pow(std::sin(pi * w[0]), 2) +
               (w[4] - 1) * (w[4] - 1) * (1 + std::pow(std::sin(2 * pi * w[4]), 2));
  for (int j = 0; j < 4; ++j) sum += (w[j] - 1) * (w[j] - 1) * (1 + 10 * std::pow(std::sin(pi * w[j] + 1), 2));
  return sum;
}

// A training-like objective over an optimizer (categorical: an offset and its
// best log10 learning rate each), a learning rate (log), layers (int) and
// dropout (float), the learning rate and dropout interacting; minimum 0 at
// adam, lr 10^-3.2, 4 layers, dropout 0.2.
inline double mixed(const nlohmann::json& h) {
  const std::string optimizer = h.at("optimizer").get<std::string>();
  const double offset = optimizer == "adam" ? 0.0 : optimizer == "rmsprop" ? 0.05 : 0.2;
  const double best_log_lr = optimizer == "adam" ? -3.2 : optimizer == "rmsprop" ? -2.8 : -2.0;
  const double a = std::log10(h.at("lr").get<double>()) - best_log_lr, b = h.at("dropout").get<double>() - 0.2;
  const double layers = h.at("layers").get<double>();
  return offset + 0.25 * a * a + 0.3 * a * b + 2 * b * b + 0.02 * (layers - 4) * (layers - 4);
}

inline TestFunction rosenbrock5_function() {
  hparams::Space space{{"global_batch_size", {hparams::ConstParam{1}}}};
  for (int j = 1; j <= 5; ++j) space["x" + std::to_string(j)] = real(-2.048, 2.048);
  return {"rosenbrock5", space, 0.0, rosenbrock5};
}

inline TestFunction levy5_function() {
  hparams::Space space{{"global_batch_size", {hparams::ConstParam{1}}}};
  for (int j = 1; j <= 5; ++j) space["x" + std::to_string(j)] = real(-10, 10);
  return {"levy5", space, 0.0, levy5};
}

inline TestFunction mixed_function() {
  hparams::Space space{{"global_batch_size", {hparams::ConstParam{1}}},
                       {"optimizer", {hparams::CategoricalParam{{"adam", "rmsprop", "sgd"}}}},
                       {"lr", {hparams::LogParam{10, -5, -1, {}}}},
                       {"layers", {hparams::IntParam{1, 8, {}}}},
                       {"dropout", real(0, 0.5)}};
  return {"mixed", space, 0.0, mixed};
}

// The learning-curve objectives of the early-stopping bench: the validation
// loss of a trial with hyperparameters `h` after `epoch` epochs (of at most
// kCurveEpochs), plateau(h) + exp(-speed(h) * epoch), deterministic and
// decreasing in epoch. With v = log10(lr) + 4 in [0, 4]:
// speed = 10^(v/2) (0.5 + width) / speed_divisor,
// plateau = 0.02 (v - 1.5)^2 + 0.1 width^2 + 0.1 (decay - 0.6)^2.
// A larger learning rate or width starts faster but plateaus higher, so the
// curves cross: the fast starters lead early, the best final losses (lr near
// 10^-2.5, width near 0) pass them later, by about epoch 9 in `curve`
// (speed_divisor 9) and epoch 33 in `curve_late` (27).
inline constexpr std::uint64_t kCurveEpochs = 81;

struct CurveObjective {
  std::string name;
  double speed_divisor = 0;
  double minimum = 0;  // of the loss after kCurveEpochs epochs (scipy L-BFGS-B from 20 starts)
};

inline std::vector<CurveObjective> curve_objectives() {
  return {{"curve", 9, 1.0233446e-11}, {"curve_late", 27, 1.630237912465890e-4}};
}

// The rate at which a curve's transient part, exp(-speed * epoch), decays.
inline double curve_speed(const CurveObjective& c, const nlohmann::json& h) {
  const double v = std::log10(h.at("lr").get<double>()) + 4, width = h.at("width").get<double>();
  return std::pow(10.0, v / 2) * (0.5 + width) / c.speed_divisor;
}

// The loss a curve settles at.
inline double curve_plateau(const nlohmann::json& h) {
  const double v = std::log10(h.at("lr").get<double>()) + 4, width = h.at("width").get<double>();
  const double decay = h.at("decay").get<double>();
  return 0.02 * (v - 1.5) * (v - 1.5) + 0.1 * width * width + 0.1 * (decay - 0.6) * (decay - 0.6);
}

inline double curve_loss(const CurveObjective& c, const nlohmann::json& h, std::uint64_t epoch) {
  return curve_plateau(h) + std::exp(-curve_speed(c, h) * static_cast<double>(epoch));
}

inline hparams::Space curve_space() {
  return {{"global_batch_size", {hparams::ConstParam{1}}},
          {"lr", {hparams::LogParam{10, -4, 0, {}}}},
          {"width", real(0, 1)},
          {"decay", real(0, 1)}};
}

}  // namespace volador::search::testing
