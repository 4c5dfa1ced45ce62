#pragma once
// The NCCL backend (builds with CUDA and NCCL only: VOLADOR_HAVE_NCCL): one
// GPU per rank, collectives on device memory. The spans given to allreduce
// and broadcast must point to memory of the communicator's device. Calls
// return once the operation has completed on the GPU. NCCL cannot tell that
// a peer died, so a dead or hung peer is reported after CommOptions::timeout
// (or sooner when NCCL raises an asynchronous error); the communicator is
// then aborted. Unlike the host backends it cannot detect ranks that make
// different calls either. No CUDA or NCCL header leaks from here.
//
// Setup, as a rendezvous drives it: one rank calls make_nccl_id(), the
// trial actor hands the id to every rank, each calls NcclCommunicator::join.

#include <array>
#include <cstddef>
#include <memory>

#include "runtime/collective/communicator.hpp"

namespace volador::collective {

using NcclId = std::array<std::byte, 128>;

namespace detail {
struct NcclState;  // the NCCL communicator, CUDA stream and scratch
}  // namespace detail

// A fresh group id (ncclGetUniqueId). Error unavailable naming NCCL's reason.
[[nodiscard]] Result<NcclId> make_nccl_id();

class NcclCommunicator final : public Communicator {
 public:
  // Joins group `id` as `rank` of `size` on CUDA device `device`; fails
  // after options.timeout when the group does not form.
  [[nodiscard]] static Result<std::unique_ptr<NcclCommunicator>> join(const NcclId& id, int rank, int size,
                                                                      int device, CommOptions options = {});
  ~NcclCommunicator() override;

  // `data` must be device memory (error invalid_argument otherwise) whose
  // values are final: the collective runs on the communicator's own stream.
  using Communicator::allreduce;
  Status allreduce(std::span<std::byte> data, DType type, ReduceOp op) override;
  // allreduce that starts on the GPU once `ready_event` (a cudaEvent_t
  // recorded after the work producing `data`; null: none) has completed.
  Status allreduce_after(std::span<std::byte> data, DType type, ReduceOp op, void* ready_event);
  // Reduces each buffer in place, launched as one NCCL group call.
  Status allreduce_each(std::span<const std::span<std::byte>> buffers, DType type, ReduceOp op);
  Status broadcast(std::span<std::byte> data, int root) override;
  Status barrier() override;
  [[nodiscard]] int rank() const override;
  [[nodiscard]] int size() const override;
  [[nodiscard]] std::string_view backend() const override { return "nccl"; }

 private:
  explicit NcclCommunicator(std::unique_ptr<detail::NcclState> state);

  std::unique_ptr<detail::NcclState> state_;
};

}  // namespace volador::collective
