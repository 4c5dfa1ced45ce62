#pragma once
// The experiment configuration (distributed.yaml) as typed structs, with the
// defaults of the user manual. Produced only by parse_experiment_config(),
// which guarantees every invariant stated in the comments below.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/command/entrypoint.hpp"
#include "runtime/hparams/space.hpp"

namespace volador::config {

enum class LengthUnit { batches, records, epochs };

// Which validations are followed by a checkpoint (Determined's checkpoint_policy):
// best = those better than every earlier one of the trial, all = every one,
// none = none. Checkpoints at min_checkpoint_period and at the searcher's
// targets are taken whatever the policy.
enum class CheckpointPolicy { best, all, none };

// A training length such as `{batches: 900}` or `{epochs: 2}`; value > 0.
struct Length {
  LengthUnit unit = LengthUnit::batches;
  std::uint64_t value = 0;
};

// The longest length a config may ask for, in batches: far beyond any
// training, and every count up to it is exact in JSON numbers (doubles).
inline constexpr std::uint64_t kMaxTrainingBatches = std::uint64_t{1} << 53;

// Population-based training (searcher `pbt`, as Determined's): the settings
// of its keys, replace_function and explore_function flattened.
struct PbtSettings {
  std::uint32_t population_size = 0;  // >= 1
  std::uint32_t num_rounds = 0;       // >= 1
  Length length_per_round;            // at least one batch
  double truncate_fraction = 0;       // replace_function: in (0, 0.5], and
                                      // floor(truncate_fraction * population_size) >= 1
  double resample_probability = 0;    // explore_function: in [0, 1]
  double perturb_factor = 0;          // explore_function: in [0, 1]
};

struct SearcherConfig {
  std::string name;      // single | grid | random | adaptive_asha | tpe | bayesian | pbt
                         // (`adaptive` in the file is stored as adaptive_asha)
  std::string metric;    // validation metric name
  bool smaller_is_better = true;
  Length max_length;     // pbt has no such key: there it is length_per_round x num_rounds
  std::uint32_t max_trials = 0;             // random, adaptive_asha (> 0 there)
  std::uint32_t max_concurrent_trials = 16; // 0 = as many as fit
  std::string mode = "standard";            // adaptive_asha: aggressive|standard|conservative
  std::uint32_t divisor = 4;                // adaptive_asha
  std::uint32_t max_rungs = 5;              // adaptive_asha
  PbtSettings pbt;                          // pbt
  // Keys this build does not interpret yet, kept as JSON for later issues:
  // early_stopping, goal, max_failed_trials (any searcher but single) and
  // every other key of tpe and bayesian.
  nlohmann::json extra = nlohmann::json::object();
};

// How metrics are read from a command entrypoint's stdout (besides the lines
// of the reporting API): every match of `format` on a line is a metric,
// capture group 1 its name and group 2 its value (a finite number).
struct MetricsCollector {
  std::string format;  // ECMAScript regex, >= 2 groups; empty = Katib's default
                       // ([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)
};

struct CheckpointStorage {
  std::string type = "shared_fs";  // shared_fs | s3 | gcs | azure
  std::string host_path;           // shared_fs
  std::string storage_path;        // shared_fs, optional sub-folder
  std::string bucket, access_key, secret_key, prefix, endpoint_url;  // s3 / gcs
  std::string container, connection_string, account_url, credential;  // azure
  std::uint32_t save_experiment_best = 0;
  std::uint32_t save_trial_best = 1;
  std::uint32_t save_trial_latest = 1;
};

struct Resources {
  std::uint32_t slots_per_trial = 1;
  // Bytes > 0; `128M`, `1.5G`, `4Gi` accepted. Unset: 4 GiB (sandbox::kDefaultShmBytes), and an
  // unsandboxed agent may run the trial, which it refuses when shm_size is set.
  std::optional<std::uint64_t> shm_size;
  std::string resource_pool;            // empty = the cluster's default pool (runtime/config/cluster_config.hpp)
  std::uint32_t priority = 42;          // 1..99, lower is more important (Determined's convention)
  double weight = 1.0;                  // > 0: the experiment's share of its pool beside others of its priority
  // A stopped or killed trial's processes get SIGTERM, then SIGKILL after this; `30s`, `500ms`, `2min`.
  std::chrono::milliseconds kill_grace_period{10000};
  // Each rank's processes together may use this many bytes and run this many
  // processes at once (a rank past either is killed); 0: what its agent allows.
  std::uint64_t memory_limit = 0;
  std::uint32_t max_processes = 0;
};

struct BindMount {
  std::string host_path;
  std::string container_path;
  bool read_only = false;
};

struct RegistryAuth {
  std::string username, password, serveraddress;
};

struct Environment {
  std::string image;
  bool force_pull_image = false;
  std::optional<RegistryAuth> registry_auth;
  std::vector<std::string> environment_variables;  // each NAME=VALUE
};

// The entrypoint as written, and what it names: classified once, when the
// config is parsed (a malformed one is a config error at its line).
struct Entrypoint {
  std::string text;
  command::Entrypoint kind;
};

struct ExperimentConfig {
  std::string name;
  std::string description;
  nlohmann::json labels = nlohmann::json::array();  // list of strings
  nlohmann::json data = nlohmann::json::object();   // free-form, passed to trials
  std::string workspace, project;                   // both or neither
  Entrypoint entrypoint;                            // "file:Class", "native:name" or a command

  hparams::Space hyperparameters;                   // always has global_batch_size; int bounds within ±2^53
  std::uint64_t global_batch_size = 0;              // 1 .. 2^53, divisible by slots_per_trial

  SearcherConfig searcher;
  MetricsCollector metrics_collector;               // command entrypoints only
  std::optional<std::uint64_t> records_per_epoch;   // required if any length is in epochs
  std::uint64_t scheduling_unit = 100;              // batches between metric reports
  std::optional<Length> min_validation_period;
  std::optional<Length> min_checkpoint_period;
  CheckpointPolicy checkpoint_policy = CheckpointPolicy::best;
  bool perform_initial_validation = false;
  std::uint32_t max_restarts = 5;
  std::optional<CheckpointStorage> checkpoint_storage;  // absent: the cluster default

  Resources resources;
  std::vector<BindMount> bind_mounts;
  Environment environment;
  std::optional<std::uint32_t> experiment_seed;     // 0 .. 2^31-1
};

}  // namespace volador::config
