#pragma once
// The checkpoint store of an experiment: its checkpoint_storage, or the
// cluster default (a shared_fs folder under the master's data directory).

#include <filesystem>
#include <memory>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Errors as checkpoints::make_checkpoint_store (unsupported type, missing host_path).
Result<std::shared_ptr<checkpoints::CheckpointStore>> experiment_store(const config::ExperimentConfig& config,
                                                                       const std::filesystem::path& data_dir);
// The store of a journaled experiment, by its config; corruption when that no longer parses.
Result<std::shared_ptr<checkpoints::CheckpointStore>> experiment_store(const storage::ExperimentRecord& experiment,
                                                                       const std::filesystem::path& data_dir);

}  // namespace volador::master
