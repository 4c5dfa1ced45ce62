#include "runtime/collective/tcp_communicator.hpp"

#include <sys/socket.h>

#include "runtime/collective/reduce_kernels.hpp"
#include "runtime/collective/ring_schedule.hpp"
#include "runtime/collective/tcp_mesh.hpp"

namespace volador::collective {

namespace {

constexpr std::size_t kStagingFloats = 64 << 10;  // 256 KiB: stays in L2 until it is added

CallOp call_op(ReduceOp op) { return op == ReduceOp::sum ? CallOp::allreduce_sum : CallOp::allreduce_avg; }

}  // namespace

Result<std::unique_ptr<TcpCommunicator>> TcpCommunicator::connect(TcpListener& listener,
                                                                  std::span<const Endpoint> endpoints, int rank,
                                                                  std::string_view secret, CommOptions options) {
  auto peers = connect_mesh(listener, endpoints, rank, secret, options.timeout);
  if (!peers) return fail(peers.error());
  return std::unique_ptr<TcpCommunicator>(new TcpCommunicator(std::move(*peers), rank, options));
}

TcpCommunicator::TcpCommunicator(std::vector<UniqueFd> peers, int rank, CommOptions options)
    : peers_(std::move(peers)),
      rank_(rank),
      options_(options),
      spin_(static_cast<int>(peers_.size())),
      staging_(kStagingFloats) {}

Status TcpCommunicator::allreduce(std::span<std::byte> data, DType type, ReduceOp op) {
  if (auto ok = latch_.check(); !ok) return ok;
  if (auto ok = check_elements(data, type); !ok) return ok;
  const CallHeader header = make_header(call_op(op), 0, seq_++, data.size_bytes(), type);
  if (size() == 1) return {};
  const float scale = op == ReduceOp::avg ? 1.0f / static_cast<float>(size()) : 1.0f;
  const bool doubling = data.size_bytes() <= kDoublingBytes;
  if (type != DType::f32) {
    return finish(doubling ? reduce_half_doubling(data, type, scale, header) : reduce_half_ring(data, type, scale, header),
                  header);
  }
  const std::span floats(reinterpret_cast<float*>(data.data()), data.size() / sizeof(float));
  return finish(doubling ? reduce_doubling(floats, scale, header) : reduce_ring(floats, scale, header), header);
}

Status TcpCommunicator::broadcast(std::span<std::byte> data, int root) {
  if (auto ok = latch_.check(); !ok) return ok;
  if (root < 0 || root >= size()) return fail(Error::invalid_argument("broadcast root " + std::to_string(root) + " outside the group"));
  const CallHeader header = make_header(CallOp::broadcast, root, seq_++, data.size_bytes());
  if (size() == 1) return {};
  const bool direct = data.size() <= kDoublingBytes || size() == 2;
  return finish(direct ? broadcast_direct(data, root, header) : broadcast_chain(data, root, header), header);
}

Status TcpCommunicator::barrier() {
  if (auto ok = latch_.check(); !ok) return ok;
  float token = 0.0f;
  const CallHeader header = make_header(CallOp::barrier, 0, seq_++, sizeof token);
  if (size() == 1) return {};
  return finish(reduce_doubling(std::span(&token, 1), 1.0f, header), header);
}

// Recursive doubling: ranks beyond the largest power of two p fold into rank
// r - p first; then log2(p) rounds of pairwise exchange, each pair adding
// lower rank's value + higher rank's so both get the same bits.
Status TcpCommunicator::reduce_doubling(std::span<float> data, float scale, const CallHeader& header) {
  const int p = doubling_base(size());
  gathered_.resize(data.size());
  const std::span<float> theirs(gathered_);
  auto add_pair = [&](int peer, float factor) {
    const float* rows[] = {peer < rank_ ? theirs.data() : data.data(), peer < rank_ ? data.data() : theirs.data()};
    sum_rows(data.data(), nullptr, rows, data.size(), factor);
  };
  if (rank_ >= p) {
    if (auto ok = transfer(rank_ - p, std::as_bytes(data), -1, {}, header); !ok) return ok;
    if (auto ok = transfer(-1, {}, rank_ - p, std::as_writable_bytes(data), header); !ok) return ok;
    return {};
  }
  if (rank_ + p < size()) {
    if (auto ok = transfer(-1, {}, rank_ + p, std::as_writable_bytes(theirs), header); !ok) return ok;
    add_pair(rank_ + p, 1.0f);
  }
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = rank_ ^ mask;
    if (auto ok = transfer(peer, std::as_bytes(data), peer, std::as_writable_bytes(theirs), header); !ok) return ok;
    add_pair(peer, mask == p / 2 ? scale : 1.0f);
  }
  if (rank_ + p < size()) return transfer(rank_ + p, std::as_bytes(data), -1, {}, header);
  return {};
}

Status TcpCommunicator::transfer(int to, std::span<const std::byte> out, int from, std::span<std::byte> in,
                                 const CallHeader& header) {
  SendStream s = send_to(to < 0 ? rank_ : to, header);
  s.parts = {out};
  RecvStream r = recv_from(from < 0 ? rank_ : from, header);
  r.parts = {{in}};
  return pump(std::span(&s, to < 0 ? 0 : 1), std::span(&r, from < 0 ? 0 : 1), options_.timeout, spin_);
}

// Ring reduce-scatter + all-gather: receive from rank-1, send to rank+1,
// each block forwarded as soon as it has been added to (or copied).
Status TcpCommunicator::reduce_ring(std::span<float> data, float scale, const CallHeader& header) {
  return ring_steps_over(std::as_writable_bytes(data), sizeof(float), 0, ring_steps(size()), scale, header);
}

// Ring steps [first, last) over `data`, `element` bytes per element; only
// float32 data may take reduce steps.
Status TcpCommunicator::ring_steps_over(std::span<std::byte> data, std::size_t element, int first, int last, float scale,
                                        const CallHeader& header) {
  const int n = size();
  const std::size_t count = data.size() / element;
  auto block_bytes = [&](int b) {
    const Range r = block(count, n, b);
    return data.subspan(r.offset * element, r.count * element);
  };
  RecvStream in = recv_from((rank_ + n - 1) % n, header);
  in.scratch = staging_;
  SendStream out = send_to((rank_ + 1) % n, header);
  for (int t = first; t < last; ++t) {
    const RingStep step = ring_step(n, rank_, t);
    const bool last_add = step.reduce && step.recv_block == owned_block(n, rank_);
    out.parts.push_back(block_bytes(step.send_block));
    in.parts.push_back({block_bytes(step.recv_block), step.reduce, last_add ? scale : 1.0f});
  }
  out.lead = out.parts.front().size();
  out.gate = &in;
  return pump(std::span(&out, 1), std::span(&in, 1), options_.timeout, spin_);
}

// Half types, small: the whole buffer is widened and reduced in float32,
// then rounded once; every rank rounds the same float32 bits.
Status TcpCommunicator::reduce_half_doubling(std::span<std::byte> data, DType type, float scale,
                                             const CallHeader& header) {
  const std::size_t count = data.size() / element_bytes(type);
  widened_.resize(count);
  widen(widened_.data(), data.data(), count, type);
  if (auto ok = reduce_doubling(widened_, scale, header); !ok) return ok;
  narrow(data.data(), widened_.data(), count, type);
  return {};
}

// Half types, large, piece by piece: the reduce-scatter runs on a float32
// copy (partial sums travel as float32), each rank rounds the block it owns
// once, and the all-gather moves the rounded half elements.
Status TcpCommunicator::reduce_half_ring(std::span<std::byte> data, DType type, float scale, const CallHeader& header) {
  const int n = size();
  const std::size_t element = element_bytes(type);
  const std::size_t count = data.size() / element;
  for (std::size_t p = 0; p < chunk_count(count, kHalfPieceElements); ++p) {
    const Range piece = chunk(count, kHalfPieceElements, p);
    const auto half = data.subspan(piece.offset * element, piece.count * element);
    widened_.resize(piece.count);
    widen(widened_.data(), half.data(), piece.count, type);
    if (auto ok = ring_steps_over(std::as_writable_bytes(std::span(widened_)), sizeof(float), 0, n - 1, scale, header);
        !ok) {
      return ok;
    }
    const Range mine = block(piece.count, n, owned_block(n, rank_));
    narrow(half.data() + mine.offset * element, widened_.data() + mine.offset, mine.count, type);
    if (auto ok = ring_steps_over(half, element, n - 1, ring_steps(n), 1.0f, header); !ok) return ok;
  }
  return {};
}

Status TcpCommunicator::broadcast_direct(std::span<std::byte> data, int root, const CallHeader& header) {
  std::vector<SendStream> sends;
  std::vector<RecvStream> recvs;
  if (rank_ == root) {
    for (int peer = 0; peer < size(); ++peer) {
      if (peer == rank_) continue;
      sends.push_back(send_to(peer, header));
      sends.back().parts = {data};
    }
  } else {
    recvs.push_back(recv_from(root, header));
    recvs.back().parts = {{data}};
  }
  return pump(sends, recvs, options_.timeout, spin_);
}

// root -> root+1 -> ...: every rank forwards what it has received so far.
Status TcpCommunicator::broadcast_chain(std::span<std::byte> data, int root, const CallHeader& header) {
  const int next = chain_next(size(), root, rank_);
  const int prev = chain_prev(size(), root, rank_);
  RecvStream in;
  SendStream out;
  if (prev >= 0) {
    in = recv_from(prev, header);
    in.parts = {{data}};
  }
  if (next >= 0) {
    out = send_to(next, header);
    out.parts = {data};
    if (prev >= 0) {
      out.lead = 0;
      out.gate = &in;
    }
  }
  return pump(std::span(&out, next >= 0 ? 1 : 0), std::span(&in, prev >= 0 ? 1 : 0), options_.timeout, spin_);
}

Status TcpCommunicator::finish(Status outcome, const CallHeader& header) {
  if (outcome) return outcome;
  for (const UniqueFd& fd : peers_) {
    if (fd) ::shutdown(fd.get(), SHUT_RDWR);
  }
  const Error& e = outcome.error();
  return latch_.record(fail({e.code, "tcp " + describe(header) + " on rank " + std::to_string(rank_) + ": " + e.message}));
}

SendStream TcpCommunicator::send_to(int peer, const CallHeader& header) const {
  SendStream s;
  s.fd = peers_[static_cast<std::size_t>(peer)].get();
  s.peer = peer;
  s.header = header;
  return s;
}

RecvStream TcpCommunicator::recv_from(int peer, const CallHeader& header) const {
  RecvStream r;
  r.fd = peers_[static_cast<std::size_t>(peer)].get();
  r.peer = peer;
  r.expected = header;
  return r;
}

}  // namespace volador::collective
