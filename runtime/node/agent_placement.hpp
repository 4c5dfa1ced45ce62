#pragma once
// Where an agent offers its slots: the resource pool it joins (`--pool
// NAME`) and the labels it carries (`--label key=value`, repeatable), as the
// master's scheduler and `volador agent list` see them; and the cluster
// config a master reads (`--cluster-config FILE`).

#include <map>
#include <string>
#include <vector>

#include "runtime/config/cluster_config.hpp"
#include "runtime/core/error.hpp"

namespace volador::node {

// `key=value` flags as a map. A key is 1 to 63 of a-z A-Z 0-9 _ . - /, a
// value at most 255 printable characters (maybe empty). invalid_argument
// naming the flag for a malformed one or a key given twice.
Result<std::map<std::string, std::string>> parse_agent_labels(const std::vector<std::string>& flags);

// The cluster config in `path`; without a path, default_cluster_config().
// not_found for a missing file; invalid_argument with every error of the
// file, one `FILE:LINE:COL: field: message` a line.
Result<config::ClusterConfig> read_cluster_config(const std::string& path);

}  // namespace volador::node
