#pragma once
// Fuses the allreduce of many tensors into few collective calls: tensors are
// packed, in order, into buckets of a bounded size (a tensor larger than a
// bucket is split across several), and each bucket is one allreduce. A bucket
// holding a single piece is reduced in place, without a copy.

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/collective/communicator.hpp"

namespace volador::collective {

// A contiguous run of one tensor's elements inside a bucket.
struct BucketPiece {
  std::size_t tensor = 0;  // index into the tensor list
  std::size_t offset = 0;  // first element in that tensor
  std::size_t count = 0;   // elements
  bool operator==(const BucketPiece&) const = default;
};
using Bucket = std::vector<BucketPiece>;

// Packs tensors of `sizes` elements, in order, into buckets of at most
// `bucket_elements` (> 0) elements each; empty tensors take no piece.
[[nodiscard]] std::vector<Bucket> plan_buckets(std::span<const std::size_t> sizes, std::size_t bucket_elements);

class BucketedAllreduce {
 public:
  static constexpr std::size_t kDefaultBucketBytes = std::size_t{4} << 20;

  // `comm` must outlive this object; bucket_bytes is rounded down to whole
  // floats (at least one).
  BucketedAllreduce(Communicator& comm, std::size_t bucket_bytes = kDefaultBucketBytes);

  // Reduces every tensor element-wise across the group, in place. All ranks
  // pass tensors of the same sizes in the same order.
  Status run(std::span<const std::span<float>> tensors, ReduceOp op);

 private:
  Status reduce_bucket(const Bucket& bucket, std::span<const std::span<float>> tensors, ReduceOp op);

  Communicator& comm_;
  std::size_t bucket_elements_;
  std::vector<std::size_t> planned_sizes_;  // the sizes plan_ was made for
  std::vector<Bucket> plan_;
  std::vector<float> staging_;
};

}  // namespace volador::collective
