#pragma once
// Internal to volador_config: the YAML document as a whole, before any field
// is read: its size, encoding and syntax, its shape, its duplicate keys, and
// bounds on what reading it costs. The walk sees the document as the readers
// will (aliases expanded), so that an alias bomb or a self-referencing anchor
// costs at most kMaxNodes visits.

#include <cstddef>
#include <optional>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"

namespace volador::config {

inline constexpr std::size_t kMaxBytes = std::size_t{1} << 20;
inline constexpr std::size_t kMaxNodes = 100'000;  // values, aliases expanded
inline constexpr std::size_t kMaxDepth = 64;       // nested maps and lists

// The top-level map of `text`, or nullopt having reported why not: over
// kMaxBytes, not UTF-8, a YAML syntax error, empty, several documents, or
// not a map.
std::optional<YAML::Node> load_document(Diagnostics& diag, std::string_view text);

// Reports duplicate keys (with both positions) and keys that are not plain
// scalars. Returns false when the document is over kMaxNodes or kMaxDepth
// (reported, after any duplicates found before): it must not be read further.
bool check_document(Diagnostics& diag, const YAML::Node& root);

}  // namespace volador::config
