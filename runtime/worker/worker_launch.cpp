#include "runtime/worker/worker_launch.hpp"

#include <cstdlib>
#include <functional>
#include <optional>

#include "runtime/node/timings_file.hpp"
#include "runtime/worker/trial_file.hpp"

namespace volador::worker {
namespace {

// A variable's value; nullopt when it is not set.
using Lookup = std::function<std::optional<std::string>(const char* name)>;

Result<std::string> required(const Lookup& lookup, const char* name) {
  auto value = lookup(name);
  if (!value || value->empty())
    return fail(Error::invalid_argument(std::string(name) + " is not set: volador-worker is started by a Volador agent"));
  return *value;
}

// `timings`, when known; else those of the file VOLADOR_TIMINGS_FILE names.
Result<WorkerLaunch> read_launch(const Lookup& lookup, std::optional<master::Timings> timings);

}  // namespace

trial_api::TrialContext WorkerLaunch::context(std::shared_ptr<trial_api::DataParallel> group) const {
  return {hparams, data, seed, global_batch_size, std::move(group)};
}

Result<WorkerLaunch> read_worker_launch() {
  return read_launch(
      [](const char* name) -> std::optional<std::string> {
        const char* value = std::getenv(name);
        return value == nullptr ? std::nullopt : std::optional<std::string>(value);
      },
      std::nullopt);
}

Result<WorkerLaunch> read_worker_launch(const std::map<std::string, std::string>& environment,
                                        const master::Timings& timings) {
  auto launch = read_launch(
      [&](const char* name) -> std::optional<std::string> {
        auto it = environment.find(name);
        return it == environment.end() ? std::nullopt : std::optional(it->second);
      },
      timings);
  if (launch) launch->environment = environment;
  return launch;
}

namespace {

Result<master::Timings> agent_timings(const Lookup& lookup) {
  auto file = required(lookup, "VOLADOR_TIMINGS_FILE");
  if (!file) return fail(file.error());
  return node::read_timings_file(*file);
}

Result<WorkerLaunch> read_launch(const Lookup& lookup, std::optional<master::Timings> known_timings) {
  auto master = required(lookup, "VOLADOR_MASTER");
  auto tls_dir = required(lookup, "VOLADOR_TLS_DIR");
  auto token = required(lookup, "VOLADOR_TOKEN");
  auto trial_file = required(lookup, "VOLADOR_TRIAL_FILE");
  for (const auto* r : {&master, &tls_dir, &token, &trial_file})
    if (!*r) return fail(r->error());
  auto endpoint = net::parse_endpoint(*master);
  if (!endpoint) return fail(endpoint.error());
  auto file = read_trial_file(*trial_file);
  if (!file) return fail(file.error());
  auto& trial = file->spec;
  auto timings = known_timings ? Result<master::Timings>(*known_timings) : agent_timings(lookup);
  if (!timings) return fail(timings.error());
  WorkerLaunch launch;
  launch.master = *endpoint;
  launch.tls_dir = *tls_dir;
  if (auto advertise = lookup("VOLADOR_ADVERTISE")) launch.advertise = *advertise;
  launch.hello = {trial.trial_id, trial.run_id, trial.rank, *token, {}};
  launch.experiment_id = trial.experiment_id;
  launch.world_size = trial.world_size;
  launch.local_rank = trial.local_rank;
  launch.local_size = trial.local_size;
  launch.entrypoint = trial.entrypoint;
  launch.hparams = std::move(file->hparams);
  launch.data = std::move(file->data);
  launch.seed = trial.seed;
  launch.global_batch_size = trial.global_batch_size;
  launch.restore_path = trial.restore_path;
  launch.kill_grace = std::chrono::milliseconds(trial.kill_grace_period_ms);
  launch.timings = *timings;
  launch.first_workload = std::move(trial.first_workload);
  return launch;
}

}  // namespace

}  // namespace volador::worker
