#include "master/experiment_store.hpp"

namespace volador::master {

Result<std::shared_ptr<checkpoints::CheckpointStore>> experiment_store(const config::ExperimentConfig& config,
                                                                       const std::filesystem::path& data_dir) {
  auto store = checkpoints::make_checkpoint_store(config.checkpoint_storage, data_dir / "checkpoints");
  if (!store) return fail(store.error());
  return std::shared_ptr<checkpoints::CheckpointStore>(std::move(*store));
}

}  // namespace volador::master
