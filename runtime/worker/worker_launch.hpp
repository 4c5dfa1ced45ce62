#pragma once
// What a rank worker learns at start from its environment (set by the agent)
// and the trial file in its working folder.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "master/timings.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/trial_api/trial.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::worker {

struct WorkerLaunch {
  net::Endpoint master;
  std::filesystem::path tls_dir;  // the identity (tls/identity_files.hpp) the worker presents to the master
  std::string advertise;          // the data-plane address peers use; empty: the one routing to the master
  wire::RankHello hello;      // trial, run, rank, token
  std::uint64_t experiment_id = 0;
  std::uint32_t world_size = 1;
  std::uint32_t local_rank = 0;  // this rank's place among the trial's ranks on its host
  std::uint32_t local_size = 1;
  std::string entrypoint;
  nlohmann::json hparams;
  nlohmann::json data;
  std::uint32_t seed = 0;
  std::uint64_t global_batch_size = 0;
  std::string restore_path;   // checkpoint folder to resume from; empty: fresh start
  std::chrono::milliseconds kill_grace{10000};  // a command's processes get this long between SIGTERM and SIGKILL
  master::Timings timings;    // its agent's: how long it waits for the master and the trial
  // A 1-rank command trial's `run`, which its rank starts before its hello is
  // answered (LaunchSpec.firstWorkload); nullopt: it waits for the trial's workloads.
  std::optional<wire::WorkloadRequest> first_workload;
  // A warm worker's later trials: the variables the agent gave this trial,
  // which the trial's command gets over the worker's own. Empty for the
  // trial the worker was started for (its own environment is that trial's).
  std::map<std::string, std::string> environment;

  // The trial's context on this rank of `group`.
  [[nodiscard]] trial_api::TrialContext context(std::shared_ptr<trial_api::DataParallel> group) const;
};

// Reads VOLADOR_MASTER, VOLADOR_TLS_DIR, VOLADOR_TOKEN, the optional
// VOLADOR_ADVERTISE and the files named by VOLADOR_TRIAL_FILE and
// VOLADOR_TIMINGS_FILE (relative names: in the working folder) from the
// process's environment. Errors name the missing variable or the bad file.
Result<WorkerLaunch> read_worker_launch();

// A warm worker's next trial from `environment` (its agent's assignment),
// which becomes the launch's environment. Its timings are `timings`, its
// first trial's, which the link to the master it keeps goes on using: the
// timings file is not read again.
Result<WorkerLaunch> read_worker_launch(const std::map<std::string, std::string>& environment,
                                        const master::Timings& timings);

}  // namespace volador::worker
