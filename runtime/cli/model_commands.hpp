#pragma once
// The `volador model` verbs: the model registry (master/model_registry.hpp).
// Each prints its result (a table, or JSON with `json`) and returns the exit
// status (0, or 1 with the reason on stderr), as the other verbs (commands.hpp).

#include <cstdint>
#include <string>

#include "runtime/cli/master_client.hpp"

namespace volador::cli {

int create_model(MasterClient& client, const std::string& name, const std::string& description, bool json);
// Registers checkpoint `uuid` as the model's next version.
int register_model_version(MasterClient& client, const std::string& name, const std::string& uuid, bool json);
int list_models(MasterClient& client, bool json);
int describe_model(MasterClient& client, const std::string& name, bool json);
// Copies version `version` (0: the latest) of the model's checkpoint into
// `dir` (missing or empty), verified against its manifest.
int download_model(MasterClient& client, const std::string& name, std::uint32_t version, const std::string& dir);

// Copies checkpoint `uuid`, whose folder is `path` on the shared file
// system, into `dir`, verifying every byte (checkpoint and model downloads).
Status copy_checkpoint(const std::string& path, const std::string& uuid, const std::string& dir);

}  // namespace volador::cli
