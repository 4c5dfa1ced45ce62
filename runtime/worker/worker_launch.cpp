#include "runtime/worker/worker_launch.hpp"

#include <cstdlib>
#include <fstream>

namespace volador::worker {
namespace {

Result<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0')
    return fail(Error::invalid_argument(std::string(name) + " is not set: volador-worker is started by a Volador agent"));
  return std::string(value);
}

Result<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(Error::not_found("cannot read the trial file " + path));
  auto json = nlohmann::json::parse(in, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return fail(Error::corruption("the trial file " + path + " is not a JSON object"));
  return json;
}

}  // namespace

trial_api::TrialContext WorkerLaunch::context(std::shared_ptr<trial_api::DataParallel> group) const {
  return {hparams, data, seed, global_batch_size, std::move(group)};
}

Result<WorkerLaunch> read_worker_launch() {
  auto master = variable("VOLADOR_MASTER");
  auto tls_dir = variable("VOLADOR_TLS_DIR");
  auto token = variable("VOLADOR_TOKEN");
  auto trial_file = variable("VOLADOR_TRIAL_FILE");
  for (const auto* r : {&master, &tls_dir, &token, &trial_file})
    if (!*r) return fail(r->error());
  auto endpoint = net::parse_endpoint(*master);
  if (!endpoint) return fail(endpoint.error());
  auto trial = read_json_file(*trial_file);
  if (!trial) return fail(trial.error());
  try {
    WorkerLaunch launch;
    launch.master = *endpoint;
    launch.tls_dir = *tls_dir;
    if (const char* advertise = std::getenv("VOLADOR_ADVERTISE"); advertise != nullptr) launch.advertise = advertise;
    launch.hello = {trial->at("trial_id").get<std::uint64_t>(), trial->at("run_id").get<std::uint32_t>(),
                    trial->at("rank").get<std::uint32_t>(), *token, {}};
    launch.experiment_id = trial->value("experiment_id", std::uint64_t{0});
    launch.world_size = trial->at("world_size").get<std::uint32_t>();
    launch.local_rank = trial->value("local_rank", std::uint32_t{0});
    launch.local_size = trial->value("local_size", std::uint32_t{1});
    launch.entrypoint = trial->at("entrypoint").get<std::string>();
    launch.hparams = trial->at("hparams");
    launch.data = trial->at("data");
    launch.seed = trial->at("seed").get<std::uint32_t>();
    launch.global_batch_size = trial->at("global_batch_size").get<std::uint64_t>();
    launch.restore_path = trial->value("restore_path", "");
    return launch;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption("the trial file " + *trial_file + " is incomplete: " + e.what()));
  }
}

}  // namespace volador::worker
