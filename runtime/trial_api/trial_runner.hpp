#pragma once
// Runs workloads through a Trial: draws batches from its data sets in a
// seeded, per-epoch shuffled order, takes this rank's share of each global
// batch, and averages metrics. Pure (no actors): the rank actor owns one.

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"
#include "runtime/trial_api/trial.hpp"

namespace volador::trial_api {

class TrialRunner {
 public:
  // Builds both data sets. Errors: invalid_argument when the training set is
  // smaller than one global batch or the validation set is empty.
  // With several ranks, every rank's trial takes rank 0's parameters().
  static Result<TrialRunner> create(std::unique_ptr<Trial> trial, const TrialContext& context);

  // Trains batches [start_batch, start_batch + batches) of the trial's global
  // batch sequence; returns the training metrics averaged over those batches
  // and over ranks (every rank of the group must call it alike).
  // Batch b belongs to epoch b / batches_per_epoch(); each epoch's order is a
  // permutation seeded by (trial seed, epoch). Partial batches are dropped.
  Result<MetricMap> train(std::uint64_t start_batch, std::uint64_t batches);

  // Evaluates this rank's share of the whole validation set, in batches of
  // the per-slot batch size; metrics are the mean over all validation
  // records of all ranks (each batch weighted by its records).
  Result<MetricMap> validate();

  // Saves the trial into the empty folder `dir`. The data position needs no
  // saving: batch b's records follow from (seed, b) alone.
  Status save(const std::filesystem::path& dir) const;
  // Restores a trial saved with save().
  Status load(const std::filesystem::path& dir);

  [[nodiscard]] std::uint64_t batches_per_epoch() const { return batches_per_epoch_; }

 private:
  TrialRunner(std::unique_ptr<Trial> trial, const TrialContext& context,
              std::unique_ptr<Dataset> training, std::unique_ptr<Dataset> validation);
  const std::vector<std::size_t>& epoch_order(std::uint64_t epoch);
  Batch rank_share(std::uint64_t batch_in_epoch);

  std::unique_ptr<Trial> trial_;
  TrialContext context_;
  std::unique_ptr<Dataset> training_;
  std::unique_ptr<Dataset> validation_;
  std::uint32_t seed_;
  std::uint64_t global_batch_size_;
  std::uint32_t rank_;
  std::uint32_t size_;
  std::uint64_t batches_per_epoch_;
  std::uint64_t cached_epoch_ = UINT64_MAX;
  std::vector<std::size_t> order_;
};

}  // namespace volador::trial_api
