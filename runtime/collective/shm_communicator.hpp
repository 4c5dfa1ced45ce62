#pragma once
// The shared-memory backend, for ranks on one host. Ranks copy chunks of
// their buffer into their own slots of a shared segment; each rank then
// reduces its block of the chunk across all slots (reduce-scatter) and
// copies the other blocks out (all-gather), chunk after chunk in a two-deep
// pipeline sized to stay in cache. Small buffers take a single round: every
// rank sums all slots itself. Half types travel as half elements and each
// element is summed in float32 by one rank and rounded once.
//
// Setup, as a rendezvous drives it: every rank of the group calls
//   ShmCommunicator::join(group_id, rank, size, options)
// with the same group_id (unique per trial run) and options.

#include <cstdint>
#include <memory>
#include <string_view>

#include "runtime/collective/communicator.hpp"
#include "runtime/collective/failure_latch.hpp"
#include "runtime/collective/ring_schedule.hpp"
#include "runtime/collective/shm_segment.hpp"
#include "runtime/collective/shm_sync.hpp"

namespace volador::collective {

class ShmCommunicator final : public Communicator {
 public:
  // Buffers up to this size take the single-round path.
  static constexpr std::size_t kDirectBytes = 16 << 10;

  // Joins the group's segment (see ShmSegment::join for the naming and
  // cleanup rules) sized within options.shm_limit_bytes. Fails after
  // options.timeout when ranks are missing.
  [[nodiscard]] static Result<std::unique_ptr<ShmCommunicator>> join(std::string_view group_id, int rank, int size,
                                                                     CommOptions options = {});
  // Tells the peers this rank is gone, so that a peer still waiting fails.
  ~ShmCommunicator() override;

  using Communicator::allreduce;
  Status allreduce(std::span<std::byte> data, DType type, ReduceOp op) override;
  Status broadcast(std::span<std::byte> data, int root) override;
  Status barrier() override;
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return segment_.geometry().ranks; }
  [[nodiscard]] std::string_view backend() const override { return "shm"; }

 private:
  ShmCommunicator(ShmSegment segment, ShmSync sync, int rank);

  Status reduce_direct(std::span<std::byte> data, DType type, float scale, const CallHeader& header);
  Status reduce_chunked(std::span<std::byte> data, DType type, float scale, const CallHeader& header);
  void reduce_block(std::byte* chunk, Range mine, DType type, std::uint64_t g, float scale);
  Status broadcast_chunks(std::span<std::byte> data, int root, const CallHeader& header);
  // Chunk g's buffer is free once every rank has drained chunk g - depth.
  Status await_free(std::uint64_t g);
  // Copies `payload`, except the bytes in `skip`, into this rank's buffer
  // for chunk g and publishes it.
  void post(std::uint64_t g, const CallHeader& header, std::span<const std::byte> payload, Range skip);
  // Waits until `peer` (or, with -1, every rank) posted chunk g of the same call.
  Status await_posted(std::uint64_t g, const CallHeader& header, int peer);
  [[nodiscard]] std::byte* slot(int rank, std::uint64_t g) const;
  Status finish(Status outcome, const CallHeader& header);

  ShmSegment segment_;
  ShmSync sync_;
  int rank_;
  std::uint64_t next_chunk_ = 0;  // chunks run so far: the same on every rank
  std::uint32_t seq_ = 0;
  FailureLatch latch_;
};

}  // namespace volador::collective
