#pragma once
// Collectives on GPU memory for a group whose host communicator already
// stands: NCCL over the ranks' GPUs, formed on first use. Forming is itself
// a collective call over the host communicator: every rank says whether it
// wants and can use GPU memory, and rank 0's NCCL id is broadcast to the
// others. So every rank comes to the same decision: the NCCL communicator,
// or a refusal naming the ranks that cannot (and why this one cannot). A rank can
// when this build has NCCL and a CUDA device is visible: the agent's
// CUDA_VISIBLE_DEVICES gives each rank exactly its own GPU, device 0.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "runtime/collective/communicator.hpp"

namespace volador::collective {

// ok when this process can join NCCL collectives, else why not (no NCCL in
// this build, no CUDA device visible).
[[nodiscard]] Status local_device_support();

// Whether `p` points to GPU memory; false in builds without NCCL.
[[nodiscard]] bool is_device_memory(const void* p);

class DeviceGroup {
 public:
  // `host` must outlive this object; its rank and size are the group's, and
  // `options.timeout` bounds forming and every collective.
  DeviceGroup(Communicator& host, CommOptions options);
  DeviceGroup(const DeviceGroup&) = delete;
  DeviceGroup& operator=(const DeviceGroup&) = delete;
  ~DeviceGroup();

  // Forms the NCCL group on the first call, a collective call every rank
  // makes at the same point; `local` is this rank's answer (normally
  // local_device_support(), or why it keeps to host memory). Returns ok on
  // every rank or a refusal on every rank, and the same on later calls.
  Status form(const Status& local);
  [[nodiscard]] bool formed() const;

  // Reduces GPU memory in place once the work recorded in `ready_event` (a
  // cudaEvent_t; 0: the caller has made `data` final) is done; returns once
  // the reduction has completed on the GPU. Error invalid_argument unless
  // form() succeeded; a dead or silent peer fails it after options.timeout.
  Status allreduce(std::span<std::byte> data, DType type, ReduceOp op, std::uintptr_t ready_event = 0);
  // allreduce of each buffer (values already final), launched as one NCCL group call.
  Status allreduce_each(std::span<const std::span<std::byte>> buffers, DType type, ReduceOp op);

 private:
  struct Nccl;  // the NCCL communicator, in builds that have one
  Result<std::unique_ptr<Nccl>> join_nccl();

  Communicator& host_;
  CommOptions options_;
  std::optional<Status> outcome_;
  std::unique_ptr<Nccl> nccl_;
};

}  // namespace volador::collective
