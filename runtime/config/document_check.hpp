#pragma once
// Internal to volador_config: checks of the YAML document as a whole, before
// any field is read. Walks it as the readers will (aliases expanded), within
// bounds, so that an alias bomb or a self-referencing anchor costs at most
// kMaxNodes visits.

#include <cstddef>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"

namespace volador::config {

inline constexpr std::size_t kMaxNodes = 100'000;  // values, aliases expanded
inline constexpr std::size_t kMaxDepth = 64;       // nested maps and lists

// Reports duplicate keys (with both positions) and keys that are not plain
// scalars. Returns false, having reported that one error, when the document
// is over kMaxNodes or kMaxDepth: it must not be read further.
bool check_document(Diagnostics& diag, const YAML::Node& root);

}  // namespace volador::config
