#pragma once
// Durations as people write them in config and timings files.

#include <chrono>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador {

// "500ms", "10s", "5min", "24h": a whole number and a unit, more than 0 and
// at most a year. Error invalid_argument saying what is wrong with `text`.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace volador
