#pragma once
// Internal to volador_config: the `resources:` section and byte sizes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// Bytes from `4294967296`, `128M`, `1.5G`, `4Gi`, `512 MiB`, `64k`: a
// number, then optionally K, M, G, T or P (any case, powers of 1024 as
// Docker reads them), `i` and `B`. Fractions are rounded down.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// The keys of `resources:`.
Keys resources_keys();

// slots_per_trial (> 0), shm_size (> 0 bytes), resource_pool (a pool's name), priority (1..99),
// weight (> 0), kill_grace_period (a duration, > 0), memory_limit (> 0 bytes), max_processes (>= 8).
Resources read_resources(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
