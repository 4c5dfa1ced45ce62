#pragma once
// Internal to volador_config: training lengths, `{batches|records|epochs: N}`.

#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// A length's units: batches, records, epochs.
Keys length_units();

// A map with exactly one of batches, records, epochs and a positive count.
std::optional<Length> read_length(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
