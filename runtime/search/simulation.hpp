#pragma once
// Runs a searcher to the end without training anything: operations are acted
// on in FIFO order (so trials advance in lock step, as with equal-speed
// workers) and every ValidateAfter is answered at once with a metric from a
// caller's function. For preview-search, tests and benchmarks.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/search/searcher.hpp"

namespace volador::search {

struct SimulatedTrial {
  RequestId id = 0;
  nlohmann::json hparams;
  std::uint64_t batches = 0;  // where its training ended (its last ValidateAfter target)
  double metric = 0;          // at its last validation
  bool stopped_early = false;
  std::optional<RequestId> warm_start_from;  // as CreateTrial asked
  std::uint64_t start_batches = 0;           // where it started: its parent's batches then, else 0
};

struct Simulation {
  std::vector<SimulatedTrial> trials;  // in id order
  std::uint64_t total_batches = 0;     // batches trained, summed over trials (batches - start_batches)
  std::uint32_t max_alive = 0;         // most trials alive at once
  bool failure = false;                // as reported by Shutdown
};

// The searcher metric of a trial with `hparams` after `batches` batches.
using MetricFunction = std::function<double(const nlohmann::json& hparams, RequestId id, std::uint64_t batches)>;

// Told of each trial as it is created, before its first validation (so a
// metric with state can start a warm-started trial from its parent's).
using CreationHook = std::function<void(const SimulatedTrial&)>;

// Drives `searcher` (fresh: initial_operations() not yet called) until
// Shutdown. Error (internal) when it issues an operation for an unknown trial
// or more than `max_operations` operations without shutting down.
Result<Simulation> simulate(Searcher& searcher, const MetricFunction& metric,
                            std::uint64_t max_operations = 100'000'000);
// The same, calling `on_created` for each trial created.
Result<Simulation> simulate(Searcher& searcher, const MetricFunction& metric, const CreationHook& on_created,
                            std::uint64_t max_operations = 100'000'000);

}  // namespace volador::search
