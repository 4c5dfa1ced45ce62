#pragma once
// The trial's ranks as one rank sees them: averages gradients (fused into
// buckets in host memory; through NCCL in GPU memory), broadcasts parameters
// and combines metrics across ranks. A group of one (the default) does no
// communication at all.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "runtime/collective/bucketed_allreduce.hpp"
#include "runtime/collective/communicator.hpp"
#include "runtime/collective/device_group.hpp"
#include "runtime/core/metrics.hpp"

namespace volador::trial_api {

class DataParallel {
 public:
  // A group of one.
  DataParallel() = default;
  // A group over `comm`; gradients travel in buckets of `bucket_bytes`;
  // GPU collectives, once formed, fail after `options.timeout` without progress.
  DataParallel(std::unique_ptr<collective::Communicator> comm, std::size_t bucket_bytes,
               collective::CommOptions options = {});

  [[nodiscard]] std::uint32_t rank() const;
  [[nodiscard]] std::uint32_t size() const;
  // The group's communicator, owned by this object; null for a group of one.
  // For callers that run their own collectives (the Python module).
  [[nodiscard]] collective::Communicator* communicator() const { return comm_.get(); }
  // The group's collectives on GPU memory (see DeviceGroup); null for a group of one.
  [[nodiscard]] collective::DeviceGroup* device_group() const { return device_.get(); }

  // Replaces every tensor with its mean across ranks (same sizes, same order
  // on every rank). Tensors in GPU memory (final values; all of them, in
  // every call of the trial, or none) go through NCCL, formed at the first
  // call, or fail saying why it could not form.
  Status average(std::span<const std::span<float>> tensors);
  // Copies rank 0's tensors into every other rank's.
  Status broadcast_from_rank0(std::span<const std::span<float>> tensors);
  // The weighted mean of each metric over every rank's samples: rank r's
  // averager holds its sums and weights; all ranks must hold the same names.
  Result<MetricMap> mean_over_ranks(const MetricAverager& local);

 private:
  Status average_on_device(std::span<const std::span<float>> tensors);

  std::unique_ptr<collective::Communicator> comm_;
  std::optional<collective::BucketedAllreduce> buckets_;
  std::unique_ptr<collective::DeviceGroup> device_;  // declared after comm_: destroyed before it
  std::optional<bool> on_device_;                   // whether the gradients are in GPU memory, from the first call
};

}  // namespace volador::trial_api
