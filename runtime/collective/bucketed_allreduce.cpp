#include "runtime/collective/bucketed_allreduce.hpp"

#include <algorithm>

namespace volador::collective {

std::vector<Bucket> plan_buckets(std::span<const std::size_t> sizes, std::size_t bucket_elements) {
  std::vector<Bucket> buckets;
  std::size_t room = 0;  // free elements in the last bucket
  for (std::size_t tensor = 0; tensor < sizes.size(); ++tensor) {
    for (std::size_t offset = 0; offset < sizes[tensor];) {
      if (room == 0) {
        buckets.emplace_back();
        room = bucket_elements;
      }
      const auto count = std::min(room, sizes[tensor] - offset);
      buckets.back().push_back({tensor, offset, count});
      offset += count;
      room -= count;
    }
  }
  return buckets;
}

BucketedAllreduce::BucketedAllreduce(Communicator& comm, std::size_t bucket_bytes)
    : comm_(comm), bucket_elements_(std::max<std::size_t>(1, bucket_bytes / sizeof(float))) {}

Status BucketedAllreduce::run(std::span<const std::span<float>> tensors, ReduceOp op) {
  // The plan is made once per tensor layout (every training step repeats it).
  const bool same_layout = std::ranges::equal(tensors, planned_sizes_,
                                              [](std::span<float> t, std::size_t size) { return t.size() == size; });
  if (!same_layout) {
    planned_sizes_.clear();
    for (const auto& t : tensors) planned_sizes_.push_back(t.size());
    plan_ = plan_buckets(planned_sizes_, bucket_elements_);
  }
  for (const auto& bucket : plan_)
    if (auto s = reduce_bucket(bucket, tensors, op); !s) return s;
  return {};
}

Status BucketedAllreduce::reduce_bucket(const Bucket& bucket, std::span<const std::span<float>> tensors, ReduceOp op) {
  if (bucket.size() == 1) {
    const auto& piece = bucket.front();
    return comm_.allreduce(tensors[piece.tensor].subspan(piece.offset, piece.count), op);
  }
  staging_.clear();
  for (const auto& piece : bucket) {
    auto source = tensors[piece.tensor].subspan(piece.offset, piece.count);
    staging_.insert(staging_.end(), source.begin(), source.end());
  }
  if (auto s = comm_.allreduce(staging_, op); !s) return s;
  auto reduced = staging_.cbegin();
  for (const auto& piece : bucket) {
    std::copy_n(reduced, piece.count, tensors[piece.tensor].begin() + static_cast<std::ptrdiff_t>(piece.offset));
    reduced += static_cast<std::ptrdiff_t>(piece.count);
  }
  return {};
}

}  // namespace volador::collective
