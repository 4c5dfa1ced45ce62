#pragma once
// The searcher interface: a pure state machine. Events go in (trial created,
// validation reported, trial closed or exited early); operations come out
// (create a trial, train it to a length and validate, close it, shut down).
// No clock, no I/O, no actors: the searcher actor feeds it and journals it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"

namespace volador::search {

// Identifies a trial within one experiment's search, 1, 2, 3, ... in creation order.
using RequestId = std::uint64_t;

struct CreateTrial {
  RequestId request_id = 0;
  nlohmann::json hparams;  // concrete values, nesting as in the config
  std::uint32_t seed = 0;  // the trial's seed, derived from experiment_seed
  // Start from the newest checkpoint of this earlier trial of the search
  // instead of from scratch (pbt's exploit), its batch count going on from
  // there. The master reports a validation at a ValidateAfter target only
  // once the checkpoint there is taken, so that is the one a search asking
  // right after the parent's validation gets.
  std::optional<RequestId> warm_start_from;
  friend bool operator==(const CreateTrial&, const CreateTrial&) = default;
};
// Train the trial until it has trained `batches` in total, then validate and
// report with on_validation_completed().
struct ValidateAfter {
  RequestId request_id = 0;
  std::uint64_t batches = 0;
  friend bool operator==(const ValidateAfter&, const ValidateAfter&) = default;
};
// The trial needs no more work; the system stops it gracefully. A trial the
// searcher stops before max_length (ASHA, early stopping, a goal reached, too
// many failures) is `stopped_early`; either way it ends COMPLETED, not failed.
struct CloseTrial {
  RequestId request_id = 0;
  bool stopped_early = false;
  friend bool operator==(const CloseTrial&, const CloseTrial&) = default;
};
// The search is over; no more operations will come.
struct Shutdown {
  bool failure = false;  // true when the search gave up (e.g. too many failed trials)
  friend bool operator==(const Shutdown&, const Shutdown&) = default;
};

using Operation = std::variant<CreateTrial, ValidateAfter, CloseTrial, Shutdown>;
using Operations = std::vector<Operation>;

// Why a trial ended early. Every reason finishes the trial; errored ones count
// as failures, and a searcher that samples may replace invalid_hparams ones.
enum class ExitReason { errored, user_canceled, invalid_hparams };

class Searcher {
 public:
  virtual ~Searcher() = default;

  // Operations to start the search; called once, before any event.
  virtual Operations initial_operations() = 0;
  // The system created the trial asked for by CreateTrial.
  virtual Operations on_trial_created(RequestId id) = 0;
  // The trial validated after `batches` total batches; `metric` is the
  // searcher metric (raw: the searcher applies smaller_is_better itself).
  // Validations before the trial's current ValidateAfter target (periodic
  // ones) are welcome: they count for the goal and the best trial only.
  virtual Operations on_validation_completed(RequestId id, double metric, std::uint64_t batches) = 0;
  // The trial stopped for good (after CloseTrial or after its last ValidateAfter).
  virtual Operations on_trial_closed(RequestId id) = 0;
  // The trial ended without finishing its work.
  virtual Operations on_trial_exited_early(RequestId id, ExitReason reason) = 0;

  // Fraction of the search done, in [0, 1].
  [[nodiscard]] virtual double progress() const = 0;

  // The whole state (RNG included) as JSON; load_state(save_state()) on a
  // fresh searcher built from the same config yields identical future operations.
  [[nodiscard]] virtual nlohmann::json save_state() const = 0;
  virtual Status load_state(const nlohmann::json& state) = 0;
};

// The searcher named by config.searcher.name (see README.md here for each one
// and its fields), seeded with `experiment_seed`. Error (invalid_argument) for
// an unknown name or settings the config parser would have refused.
// `global_batch_size` and lengths are taken from `config`.
Result<std::unique_ptr<Searcher>> make_searcher(const config::ExperimentConfig& config,
                                                std::uint32_t experiment_seed);

// searcher.max_length in batches, as the searchers use it; error
// (invalid_argument) for inputs the config parser would have refused.
Result<std::uint64_t> max_length_in_batches(const config::ExperimentConfig& config);

}  // namespace volador::search
