#pragma once
// Internal to volador_config: how a trial's container is made, the
// `bind_mounts:` and `environment:` sections.

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// The keys of a bind mount, of `environment:` and of its registry_auth.
Keys bind_mount_keys();
Keys environment_keys();
Keys registry_auth_keys();

// {host_path (absolute), container_path (where runtime/sandbox/container_paths.hpp
// allows), read_only, propagation (rslave only)}; both paths required.
std::optional<BindMount> read_bind_mount(Diagnostics& diag, const YAML::Node& node,
                                         const std::string& field);

// image, force_pull_image, registry_auth {username, password, serveraddress
// (all required)}, environment_variables (a list of NAME=VALUE where NAME is
// a shell identifier).
Environment read_environment(Diagnostics& diag, const YAML::Node& node, const std::string& field);

}  // namespace volador::config
