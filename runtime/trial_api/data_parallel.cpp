#include "runtime/trial_api/data_parallel.hpp"

#include <vector>

namespace volador::trial_api {

DataParallel::DataParallel(std::unique_ptr<collective::Communicator> comm, std::size_t bucket_bytes,
                           collective::CommOptions options)
    : comm_(std::move(comm)), device_(std::make_unique<collective::DeviceGroup>(*comm_, options)) {
  buckets_.emplace(*comm_, bucket_bytes);
}

std::uint32_t DataParallel::rank() const { return comm_ ? static_cast<std::uint32_t>(comm_->rank()) : 0; }
std::uint32_t DataParallel::size() const { return comm_ ? static_cast<std::uint32_t>(comm_->size()) : 1; }

Status DataParallel::average(std::span<const std::span<float>> tensors) {
  if (size() == 1) return {};
  if (tensors.empty()) return {};
  // One CUDA query per trial: the call may set up a CUDA context, which a CPU trial should not pay for every step.
  if (!on_device_) on_device_ = collective::is_device_memory(tensors.front().data());
  if (*on_device_) return average_on_device(tensors);
  return buckets_->run(tensors, collective::ReduceOp::avg);
}

Status DataParallel::average_on_device(std::span<const std::span<float>> tensors) {
  if (auto formed = device_->form(collective::local_device_support()); !formed) {
    return fail(Error::unavailable("cannot average gradients in GPU memory: " + formed.error().message));
  }
  std::vector<std::span<std::byte>> buffers;
  buffers.reserve(tensors.size());
  for (const auto& tensor : tensors) buffers.push_back(std::as_writable_bytes(tensor));
  return device_->allreduce_each(buffers, collective::DType::f32, collective::ReduceOp::avg);
}

Status DataParallel::broadcast_from_rank0(std::span<const std::span<float>> tensors) {
  if (size() == 1) return {};
  for (const auto& tensor : tensors)
    if (auto s = comm_->broadcast(std::as_writable_bytes(tensor), 0); !s) return s;
  return {};
}

Result<MetricMap> DataParallel::mean_over_ranks(const MetricAverager& local) {
  if (size() == 1) return local.mean();
  // [sum, weight] per metric, in name order, summed across ranks.
  std::vector<float> sums;
  for (const auto& [name, entry] : local.sums()) {
    sums.push_back(static_cast<float>(entry.sum));
    sums.push_back(static_cast<float>(entry.weight));
  }
  if (auto s = comm_->allreduce(sums, collective::ReduceOp::sum); !s)
    return fail(Error::unavailable("combining metrics across ranks failed (do all ranks report the same metric "
                                   "names?): " + s.error().message));
  MetricMap out;
  auto it = sums.cbegin();
  for (const auto& [name, entry] : local.sums()) {
    out[name] = static_cast<double>(it[0]) / static_cast<double>(it[1]);
    it += 2;
  }
  return out;
}

}  // namespace volador::trial_api
