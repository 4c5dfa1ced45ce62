#pragma once
// Control-plane messages as plain C++ structs, one per struct of
// schemas/control.capnp (see there for field meanings). Actors build and read
// these; runtime/wire/codec.hpp turns them into the bytes CAF carries.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/metrics.hpp"

namespace volador::wire {

struct LogEntry {
  std::uint64_t seq = 0;
  std::int64_t time_ms = 0;
  std::string stream;
  std::string text;
};

struct CreateExperimentRequest {
  std::string config_yaml;
  std::string config_file_name;
  std::string archive;
};

struct CreateExperimentReply {
  std::uint64_t experiment_id = 0;
  std::vector<std::string> errors;
};

struct TrialSummary {
  std::uint64_t id = 0;
  std::uint64_t experiment_id = 0;
  std::uint64_t request_id = 0;
  std::string state;
  std::string hparams_json;
  std::uint32_t seed = 0;
  std::uint64_t batches_trained = 0;
  std::uint32_t restarts = 0;
  bool has_best_validation = false;
  double best_validation = 0;
  std::string error_message;
};

struct ExperimentSummary {
  std::uint64_t id = 0;
  std::string name;
  std::string state;
  double progress = 0;
  std::string searcher;
  std::string metric;
  bool smaller_is_better = true;
  std::uint32_t num_trials = 0;
  bool has_best_metric = false;
  double best_metric = 0;
  std::uint64_t best_trial_id = 0;
  std::int64_t created_at_ms = 0;
  std::int64_t ended_at_ms = 0;
  std::string error_message;
};

struct ExperimentList {
  std::vector<ExperimentSummary> experiments;
};

struct ExperimentDetail {
  ExperimentSummary summary;
  std::string description;
  std::string config_yaml;
  std::vector<TrialSummary> trials;
};

struct MetricPoint {
  std::string kind;
  std::uint64_t batches = 0;
  std::int64_t reported_at_ms = 0;
  MetricMap metrics;
};

struct TrialDetail {
  TrialSummary summary;
  std::vector<MetricPoint> metrics;
};

struct LogBatch {
  std::vector<LogEntry> lines;
};

struct CheckpointInfo {
  std::string uuid;
  std::uint64_t experiment_id = 0;
  std::uint64_t trial_id = 0;
  std::uint64_t batches = 0;
  std::string state;
  std::uint64_t total_bytes = 0;
  std::int64_t created_at_ms = 0;
  MetricMap metrics;
  std::string path;
};

struct CheckpointList {
  std::vector<CheckpointInfo> checkpoints;
};

// One slot an agent offers: a CPU slot, or a GPU with its device.
struct SlotSpec {
  std::string type = "cpu";        // "cpu" or "gpu"
  std::string device_uuid;         // GPU slots: what CUDA_VISIBLE_DEVICES names
  std::string model;               // GPU slots: the GPU model
  std::uint64_t memory_bytes = 0;  // GPU slots: device memory
  // What a trial's slots must share: "cpu", or "gpu:" and the model.
  [[nodiscard]] std::string kind() const { return type == "gpu" ? "gpu:" + model : type; }
  bool operator==(const SlotSpec&) const = default;
};

struct AgentStatus {
  std::string agent_id;
  std::string hostname;
  std::vector<SlotSpec> slots;
  std::vector<std::uint64_t> slot_trials;  // per slot: the trial using it, 0 when free
};

struct AgentList {
  std::vector<AgentStatus> agents;
};

// A rank worker an agent kept running while it had no master.
struct RunningWorker {
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::uint32_t slot = 0;  // the agent's slot it runs on
};

struct AgentInfo {
  std::string agent_id;
  std::string hostname;
  std::vector<SlotSpec> slots;
  std::vector<RunningWorker> workers;  // still running from before a master restart
};

struct LaunchSpec {
  std::uint64_t trial_id = 0;
  std::uint64_t experiment_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::uint32_t world_size = 1;
  std::string entrypoint;
  std::string hparams_json;
  std::uint32_t seed = 0;
  std::uint64_t global_batch_size = 0;
  std::string data_json;
  std::vector<std::string> environment_variables;
  std::string archive;
  std::string master_host;
  std::uint16_t master_port = 0;
  std::string token;
  std::string restore_path;
  std::uint32_t local_rank = 0;
  std::uint32_t local_size = 1;
  std::uint32_t node_index = 0;
  std::uint32_t node_count = 1;
  std::uint32_t slot = 0;  // the agent's slot the rank is bound to (its GPU, for GPU slots)
};

struct WorkerExit {
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::int32_t exit_code = 0;
  std::int32_t signal = 0;
  std::string message;
};

struct LogLines {
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::vector<LogEntry> lines;
};

struct RankAddress {
  std::string host_id;
  std::string host;
  std::uint16_t port = 0;
};

struct RankHello {
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::string token;
  RankAddress address;
};

struct RankGroup {
  std::string group_id;
  std::string secret;
  std::vector<RankAddress> ranks;
  std::uint64_t timeout_ms = 30'000;
  std::uint64_t shm_limit_bytes = 0;
};

enum class WorkloadKind { train, validate, checkpoint, run };

struct WorkloadRequest {
  WorkloadKind kind = WorkloadKind::train;
  std::uint64_t start_batch = 0;
  std::uint64_t batches = 0;
  std::string path;
  std::string metric_pattern;
};

struct WorkloadResult {
  MetricMap metrics;
  std::uint64_t batches_trained = 0;
  std::string error_message;
};

// A rank of a running trial reporting in again to a restarted master, with
// the last workload it finished (its answer may never have arrived).
struct RankRejoin {
  std::uint64_t trial_id = 0;
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  std::string token;
  std::optional<std::pair<WorkloadRequest, WorkloadResult>> last;
};

enum class ReportKind { intermediate, loss, final_result, metrics };

struct MetricReport {
  std::uint32_t run_id = 0;
  std::uint32_t rank = 0;
  ReportKind kind = ReportKind::metrics;
  double value = 0;
  MetricMap metrics;
  std::optional<std::uint64_t> step;
};

}  // namespace volador::wire
