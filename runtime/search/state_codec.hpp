#pragma once
// Helpers for searcher state as JSON: losses may be infinite (JSON has no
// infinity), and RNG states are saved as text.

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace volador::search {

// A double as JSON: finite numbers as numbers, infinities as "inf"/"-inf".
inline nlohmann::json number_to_json(double x) {
  if (std::isfinite(x)) return x;
  return x > 0 ? "inf" : "-inf";
}

// Inverse of number_to_json; throws nlohmann::json::exception on other values
// (callers decode state inside one try block).
inline double number_from_json(const nlohmann::json& j) {
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  return j.get<double>();
}

}  // namespace volador::search
