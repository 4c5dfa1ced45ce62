#pragma once
// Internal to volador_config: the `metrics_collector:` section.

#include <string>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// The keys of `metrics_collector:`.
Keys metrics_collector_keys();

// `format`: a non-empty regular expression that command::MetricPattern
// accepts (ECMAScript syntax, at least 2 capture groups); a bad one is
// reported at its value, saying why.
MetricsCollector read_metrics_collector(Diagnostics& diag, const YAML::Node& node,
                                        const std::string& field);

}  // namespace volador::config
