#pragma once
// The data plane's narrow seam: collectives over a fixed group of ranks.
// Backends (TCP, shared memory, NCCL) implement Communicator; make_communicator
// in factory.hpp picks one. Rendezvous (addresses, ids, the secret) is the
// caller's job; see each backend's header for what it needs.

#include <chrono>
#include <cstddef>
#include <span>
#include <string_view>

#include "runtime/collective/element_type.hpp"
#include "runtime/core/error.hpp"

namespace volador::collective {

enum class ReduceOp { sum, avg };

// Options every backend honours.
struct CommOptions {
  // A blocking wait fails with ErrorCode::unavailable after this long without
  // progress (no byte moved, no peer flag changed). Default 30 s.
  std::chrono::milliseconds timeout{30'000};
  // Upper bound of one shared-memory segment (the trial's shm_size share);
  // the shm backend shrinks its chunks to fit. Default 64 MiB.
  std::size_t shm_limit_bytes = std::size_t{64} << 20;
};

// A group of size() ranks that make the same collective calls in the same
// order with the same sizes (a mismatch is detected and reported, not
// silently mixed). Not thread-safe: one thread at a time per object.
// Errors are values and nothing hangs: a peer that exits or closes its
// connection fails the call within seconds; a silent one after
// `CommOptions::timeout` without progress. After the first error the object
// is broken: its peers fail too, and every later call returns that error.
class Communicator {
 public:
  virtual ~Communicator() = default;

  // Reduces `data`, whole elements of `type` aligned to one, element-wise
  // across all ranks, in place. Every rank ends with bitwise identical
  // values; avg divides the sum by size(). Half types are summed in float32
  // and rounded to nearest-even (host backends: once per element; NCCL:
  // as NCCL does). Error invalid_argument for a misshapen buffer.
  virtual Status allreduce(std::span<std::byte> data, DType type, ReduceOp op) = 0;
  // The float32 case.
  Status allreduce(std::span<float> data, ReduceOp op) { return allreduce(std::as_writable_bytes(data), DType::f32, op); }
  // Copies rank `root`'s bytes into every other rank's `data`.
  virtual Status broadcast(std::span<std::byte> data, int root) = 0;
  // Returns once every rank has entered barrier().
  virtual Status barrier() = 0;

  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  // "tcp", "shm" or "nccl".
  [[nodiscard]] virtual std::string_view backend() const = 0;
};

}  // namespace volador::collective
