#pragma once
// The TCP backend: ranks on any hosts, one authenticated socket per pair.
// Large allreduces run the bandwidth-optimal ring (reduce-scatter then
// all-gather, each rank moves 2(n-1)/n of the buffer), forwarding each block
// while it arrives; small ones run recursive doubling (log2(n) exchanges of
// the whole buffer). Large broadcasts run a pipelined chain, small ones go
// direct. Half types are summed in float32 and rounded once: partial sums
// travel as float32 (the reduce-scatter moves twice the half bytes) and
// only the all-gather moves half elements.
//
// Setup, as a rendezvous drives it:
//   auto listener = TcpListener::open(my_address);       // every rank
//   publish(listener->endpoint()); endpoints = gather();  // the trial actor
//   auto comm = TcpCommunicator::connect(*listener, endpoints, rank, secret);

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/collective/communicator.hpp"
#include "runtime/collective/failure_latch.hpp"
#include "runtime/collective/tcp_listener.hpp"
#include "runtime/collective/tcp_streams.hpp"

namespace volador::collective {

class TcpCommunicator final : public Communicator {
 public:
  // Buffers up to this size use recursive doubling instead of the ring.
  static constexpr std::size_t kDoublingBytes = 32 << 10;
  // Half-type ring allreduces run in pieces of this many elements, each
  // reduce-scattered through a float32 copy of itself.
  static constexpr std::size_t kHalfPieceElements = 256 << 10;

  // Connects rank `rank` to every other rank; `endpoints[r]` is rank r's
  // listener endpoint and `secret` the per-trial secret (1-256 bytes) every
  // rank must present. Fails after options.timeout when a rank is missing.
  [[nodiscard]] static Result<std::unique_ptr<TcpCommunicator>> connect(TcpListener& listener,
                                                                        std::span<const Endpoint> endpoints,
                                                                        int rank, std::string_view secret,
                                                                        CommOptions options = {});

  using Communicator::allreduce;
  Status allreduce(std::span<std::byte> data, DType type, ReduceOp op) override;
  Status broadcast(std::span<std::byte> data, int root) override;
  Status barrier() override;
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return static_cast<int>(peers_.size()); }
  [[nodiscard]] std::string_view backend() const override { return "tcp"; }

 private:
  TcpCommunicator(std::vector<UniqueFd> peers, int rank, CommOptions options);

  Status reduce_doubling(std::span<float> data, float scale, const CallHeader& header);
  Status reduce_ring(std::span<float> data, float scale, const CallHeader& header);
  Status ring_steps_over(std::span<std::byte> data, std::size_t element, int first, int last, float scale,
                         const CallHeader& header);
  Status reduce_half_doubling(std::span<std::byte> data, DType type, float scale, const CallHeader& header);
  Status reduce_half_ring(std::span<std::byte> data, DType type, float scale, const CallHeader& header);
  Status broadcast_direct(std::span<std::byte> data, int root, const CallHeader& header);
  Status broadcast_chain(std::span<std::byte> data, int root, const CallHeader& header);
  // Records the outcome of a call; on error closes every connection so that
  // the peers fail at once instead of waiting for the timeout.
  Status finish(Status outcome, const CallHeader& header);
  // One pump: `out` to rank `to`, `in` from rank `from` (-1: no such side).
  Status transfer(int to, std::span<const std::byte> out, int from, std::span<std::byte> in, const CallHeader& header);
  [[nodiscard]] SendStream send_to(int peer, const CallHeader& header) const;
  [[nodiscard]] RecvStream recv_from(int peer, const CallHeader& header) const;

  std::vector<UniqueFd> peers_;
  int rank_;
  CommOptions options_;
  std::uint32_t seq_ = 0;
  FailureLatch latch_;
  SpinPolicy spin_;
  std::vector<float> staging_;  // ring: received blocks before they are added
  std::vector<float> gathered_; // doubling: the partner's buffer
  std::vector<float> widened_;  // half types: the float32 copy being reduced
};

}  // namespace volador::collective
