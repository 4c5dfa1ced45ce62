#pragma once
// The master's journal: every record a user would miss after a crash, in an
// embedded RocksDB. Durability contract: a call that returns success has
// written its records with sync = true (one synced write batch per call), so
// they survive a kill -9 of the master and a power loss. Thread-safe: actors
// on any thread may call any method concurrently.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"
#include "runtime/core/states.hpp"

namespace volador::storage {

struct ExperimentRecord {
  std::uint64_t id = 0;
  std::string name;
  std::string config_yaml;       // the submitted distributed.yaml, verbatim
  std::string config_file_name;  // as given at submission, for error messages
  RunState state = RunState::active;
  std::uint32_t experiment_seed = 0;
  double progress = 0;           // searcher progress, [0, 1]
  std::string error_message;     // why it ended in ERROR, else empty
  std::int64_t created_at_ms = 0;  // unix epoch milliseconds
  std::int64_t ended_at_ms = 0;    // 0 while not terminal
};

struct TrialRecord {
  std::uint64_t id = 0;             // cluster-wide trial id
  std::uint64_t experiment_id = 0;
  std::uint64_t request_id = 0;     // the searcher's id for it
  nlohmann::json hparams;
  std::uint32_t seed = 0;
  RunState state = RunState::active;
  std::uint64_t batches_trained = 0;
  std::uint32_t restarts = 0;
  std::uint32_t run_id = 0;         // increments each time the trial (re)starts
  std::string error_message;
  std::int64_t created_at_ms = 0;
  std::int64_t ended_at_ms = 0;
};

enum class MetricKind { training, validation };

struct MetricRecord {
  std::uint64_t trial_id = 0;
  MetricKind kind = MetricKind::training;
  std::uint64_t batches = 0;    // total batches trained when reported (the step)
  MetricMap metrics;
  std::int64_t reported_at_ms = 0;
};

struct LogLine {
  std::uint64_t trial_id = 0;
  std::uint64_t seq = 0;        // assigned by the journal: 1, 2, 3, ... per trial
  std::int64_t time_ms = 0;
  std::string stream;           // "stdout", "stderr" or "system"
  std::string text;             // one line, no trailing newline
};

class Journal {
 public:
  // Opens (creating if needed) the journal in `dir`. Error io/corruption when
  // RocksDB cannot open it (including when another process holds its lock).
  static Result<std::unique_ptr<Journal>> open(const std::filesystem::path& dir);
  virtual ~Journal() = default;

  // Next value of a named durable counter ("experiment", "trial"): 1, 2, ...
  // Never repeats, even across restarts.
  virtual Result<std::uint64_t> next_id(std::string_view counter) = 0;

  // Inserts or replaces the record with the same id.
  virtual Status put_experiment(const ExperimentRecord& record) = 0;
  virtual Status put_trial(const TrialRecord& record) = 0;
  // Appends; records of one trial come back ordered by (kind, batches, order of append).
  virtual Status append_metrics(const MetricRecord& record) = 0;
  // Appends lines, assigning their seq; returns the seq of the last one.
  virtual Result<std::uint64_t> append_logs(std::uint64_t trial_id, std::vector<LogLine> lines) = 0;
  // The packed model definition of an experiment (see storage/archives).
  virtual Status put_archive(std::uint64_t experiment_id, std::string_view bytes) = 0;
  // The searcher's whole state (Searcher::save_state()).
  virtual Status put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state) = 0;

  // Reads. not_found for an unknown id.
  virtual Result<ExperimentRecord> experiment(std::uint64_t id) const = 0;
  virtual Result<std::vector<ExperimentRecord>> experiments() const = 0;        // by id
  virtual Result<TrialRecord> trial(std::uint64_t id) const = 0;
  virtual Result<std::vector<TrialRecord>> trials(std::uint64_t experiment_id) const = 0;  // by id
  virtual Result<std::vector<MetricRecord>> metrics(std::uint64_t trial_id) const = 0;
  // Lines with seq > after_seq, at most `limit` of them, by seq.
  virtual Result<std::vector<LogLine>> logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                            std::size_t limit) const = 0;
  virtual Result<std::string> archive(std::uint64_t experiment_id) const = 0;
  // nullopt when none was stored yet.
  virtual Result<std::optional<nlohmann::json>> searcher_state(std::uint64_t experiment_id) const = 0;
};

}  // namespace volador::storage
