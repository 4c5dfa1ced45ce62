#include "master/experiment_store.hpp"

#include "runtime/config/config_parser.hpp"

namespace volador::master {

Result<std::shared_ptr<checkpoints::CheckpointStore>> experiment_store(const config::ExperimentConfig& config,
                                                                       const std::filesystem::path& data_dir) {
  auto store = checkpoints::make_checkpoint_store(config.checkpoint_storage, data_dir / "checkpoints");
  if (!store) return fail(store.error());
  return std::shared_ptr<checkpoints::CheckpointStore>(std::move(*store));
}

Result<std::shared_ptr<checkpoints::CheckpointStore>> experiment_store(const storage::ExperimentRecord& experiment,
                                                                       const std::filesystem::path& data_dir) {
  auto parsed = config::parse_experiment_config(experiment.config_yaml, experiment.config_file_name);
  const auto* cfg = std::get_if<config::ExperimentConfig>(&parsed);
  if (cfg == nullptr)
    return fail(Error::corruption("experiment " + std::to_string(experiment.id) + ": its journaled config no longer parses"));
  return experiment_store(*cfg, data_dir);
}

}  // namespace volador::master
