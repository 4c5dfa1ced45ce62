#pragma once
// The trial's ranks as one rank sees them: averages gradients (fused into
// buckets), broadcasts parameters and combines metrics across ranks. A group
// of one (the default) does no communication at all.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "runtime/collective/bucketed_allreduce.hpp"
#include "runtime/collective/communicator.hpp"
#include "runtime/core/metrics.hpp"

namespace volador::trial_api {

class DataParallel {
 public:
  // A group of one.
  DataParallel() = default;
  // A group over `comm`; gradients travel in buckets of `bucket_bytes`.
  DataParallel(std::unique_ptr<collective::Communicator> comm, std::size_t bucket_bytes);

  [[nodiscard]] std::uint32_t rank() const;
  [[nodiscard]] std::uint32_t size() const;
  // The group's communicator, owned by this object; null for a group of one.
  // For callers that run their own collectives (the Python module).
  [[nodiscard]] collective::Communicator* communicator() const { return comm_.get(); }

  // Replaces every tensor with its mean across ranks (same sizes, same order on every rank).
  Status average(std::span<const std::span<float>> tensors);
  // Copies rank 0's tensors into every other rank's.
  Status broadcast_from_rank0(std::span<const std::span<float>> tensors);
  // The weighted mean of each metric over every rank's samples: rank r's
  // averager holds its sums and weights; all ranks must hold the same names.
  Result<MetricMap> mean_over_ranks(const MetricAverager& local);

 private:
  std::unique_ptr<collective::Communicator> comm_;
  std::optional<collective::BucketedAllreduce> buckets_;
};

}  // namespace volador::trial_api
