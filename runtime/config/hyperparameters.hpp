#pragma once
// Internal to volador_config: the `hyperparameters:` section.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/section.hpp"
#include "runtime/hparams/space.hpp"

namespace volador::config {

// The keys of a typed entry, one set per type.
std::vector<Keys> hyperparameter_key_sets();

// A map of name -> entry. Scalars and lists are constants; a map with a
// `type` key is a typed entry (const, int, double, log, categorical); any
// other map nests. Remembers each entry's position under its dotted field.
hparams::Space read_hyperparameters(Diagnostics& diag, const YAML::Node& node,
                                    const std::string& field);

// The space's global_batch_size, which must be a top-level constant positive
// integer; `node` is the section (for the position of a missing one).
std::optional<std::uint64_t> read_global_batch_size(Diagnostics& diag, const hparams::Space& space,
                                                    const YAML::Node& node, const std::string& field);

}  // namespace volador::config
