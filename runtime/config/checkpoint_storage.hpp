#pragma once
// Internal to volador_config: the `checkpoint_storage:` section.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {

// The keys of each storage type.
std::vector<Keys> checkpoint_storage_key_sets();

// `type` (default shared_fs) decides the known keys:
//   shared_fs: host_path (required, absolute), storage_path
//   s3:        bucket, access_key, secret_key (required), prefix, endpoint_url
//   gcs:       bucket (required), prefix
//   azure:     container (required), exactly one of connection_string and
//              account_url, credential
// and every type takes save_experiment_best, save_trial_best, save_trial_latest.
CheckpointStorage read_checkpoint_storage(Diagnostics& diag, const YAML::Node& node,
                                          const std::string& field);

}  // namespace volador::config
