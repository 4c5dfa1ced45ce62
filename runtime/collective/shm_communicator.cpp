#include "runtime/collective/shm_communicator.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runtime/collective/reduce_kernels.hpp"
#include "runtime/collective/ring_schedule.hpp"

namespace volador::collective {

namespace {


CallOp call_op(ReduceOp op) { return op == ReduceOp::sum ? CallOp::allreduce_sum : CallOp::allreduce_avg; }

}  // namespace

Result<std::unique_ptr<ShmCommunicator>> ShmCommunicator::join(std::string_view group_id, int rank, int size,
                                                               CommOptions options) {
  if (size < 1 || rank < 0 || rank >= size) {
    return fail(Error::invalid_argument("rank " + std::to_string(rank) + " outside a group of " + std::to_string(size)));
  }
  auto geometry = plan_geometry(size, options.shm_limit_bytes);
  if (!geometry) return fail(geometry.error());
  Deadline deadline(options.timeout);
  auto segment = ShmSegment::join(group_id, rank, *geometry, deadline);
  if (!segment) return fail(segment.error());
  auto sync = ShmSync::open(*segment, rank, options.timeout);
  if (!sync) return fail(sync.error());
  return std::unique_ptr<ShmCommunicator>(new ShmCommunicator(std::move(*segment), std::move(*sync), rank));
}

ShmCommunicator::ShmCommunicator(ShmSegment segment, ShmSync sync, int rank)
    : segment_(std::move(segment)), sync_(std::move(sync)), rank_(rank) {}

ShmCommunicator::~ShmCommunicator() { sync_.depart(); }

Status ShmCommunicator::allreduce(std::span<std::byte> data, DType type, ReduceOp op) {
  if (auto ok = latch_.check(); !ok) return ok;
  if (auto ok = check_elements(data, type); !ok) return ok;
  const CallHeader header = make_header(call_op(op), 0, seq_++, data.size_bytes(), type);
  if (size() == 1) return {};
  const float scale = op == ReduceOp::avg ? 1.0f / static_cast<float>(size()) : 1.0f;
  const bool direct = data.size_bytes() <= std::min(kDirectBytes, segment_.geometry().slot_bytes);
  return finish(direct ? reduce_direct(data, type, scale, header) : reduce_chunked(data, type, scale, header), header);
}

Status ShmCommunicator::broadcast(std::span<std::byte> data, int root) {
  if (auto ok = latch_.check(); !ok) return ok;
  if (root < 0 || root >= size()) return fail(Error::invalid_argument("broadcast root " + std::to_string(root) + " outside the group"));
  const CallHeader header = make_header(CallOp::broadcast, root, seq_++, data.size_bytes());
  if (size() == 1) return {};
  return finish(broadcast_chunks(data, root, header), header);
}

Status ShmCommunicator::barrier() {
  if (auto ok = latch_.check(); !ok) return ok;
  float token = 0.0f;
  const CallHeader header = make_header(CallOp::barrier, 0, seq_++, sizeof token);
  if (size() == 1) return {};
  return finish(reduce_direct(std::as_writable_bytes(std::span(&token, 1)), DType::f32, 1.0f, header), header);
}

// One round: every rank posts its whole buffer and sums every slot itself.
Status ShmCommunicator::reduce_direct(std::span<std::byte> data, DType type, float scale, const CallHeader& header) {
  const std::uint64_t g = next_chunk_++;
  if (auto ok = await_free(g); !ok) return ok;
  post(g, header, data, {data.size_bytes(), 0});
  if (auto ok = await_posted(g, header, -1); !ok) return ok;
  std::vector<const std::byte*> rows;
  for (int r = 0; r < size(); ++r) rows.push_back(slot(r, g));
  sum_rows(type, data.data(), nullptr, rows, data.size() / element_bytes(type), scale);
  sync_.publish(Phase::drained, g + 1);
  return {};
}

// Chunk by chunk: post chunk c+1 while the peers still reduce chunk c. A
// rank posts only the blocks the others reduce; its own block it reduces
// straight from its buffer. Blocks and chunks are cut in whole elements,
// blocks on cache lines.
Status ShmCommunicator::reduce_chunked(std::span<std::byte> data, DType type, float scale, const CallHeader& header) {
  const std::size_t element = element_bytes(type);
  const std::size_t grain = kCacheLine / element;
  const std::size_t count = data.size() / element;
  const std::size_t per_chunk = segment_.geometry().slot_bytes / element;
  const std::size_t chunks = chunk_count(count, per_chunk);
  const std::uint64_t first = next_chunk_;
  next_chunk_ += chunks;
  auto piece = [&](std::size_t c) {
    const Range r = chunk(count, per_chunk, c);
    return data.subspan(r.offset * element, r.count * element);
  };
  auto block_of = [&](std::size_t c, int r) {
    const Range b = block(piece(c).size() / element, size(), r, grain);
    return Range{b.offset * element, b.count * element};
  };
  if (auto ok = await_free(first); !ok) return ok;
  post(first, header, piece(0), block_of(0, rank_));
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t g = first + c;
    if (auto ok = await_posted(g, header, -1); !ok) return ok;
    reduce_block(piece(c).data(), block_of(c, rank_), type, g, scale);
    if (c + 1 < chunks) {
      if (auto ok = await_free(g + 1); !ok) return ok;
      post(g + 1, header, piece(c + 1), block_of(c + 1, rank_));
    }
    if (auto ok = sync_.wait_all(Phase::reduced, g + 1); !ok) return ok;
    for (int r = 0; r < size(); ++r) {
      if (r == rank_) continue;
      const Range b = block_of(c, r);
      std::memcpy(piece(c).data() + b.offset, slot(r, g) + b.offset, b.count);
    }
    sync_.publish(Phase::drained, g + 1);
  }
  return {};
}

// Sums this rank's block (`mine`, in bytes) of chunk g (its own from its
// buffer `chunk`, the others' from their slots) into its buffer and, for
// the peers to copy, its slot.
void ShmCommunicator::reduce_block(std::byte* chunk, Range mine, DType type, std::uint64_t g, float scale) {
  std::byte* own = chunk + mine.offset;
  std::vector<const std::byte*> rows;
  for (int r = 0; r < size(); ++r) rows.push_back(r == rank_ ? own : slot(r, g) + mine.offset);
  sum_rows(type, own, slot(rank_, g) + mine.offset, rows, mine.count / element_bytes(type), scale);
  sync_.publish(Phase::reduced, g + 1);
}

Status ShmCommunicator::broadcast_chunks(std::span<std::byte> data, int root, const CallHeader& header) {
  const std::size_t per_chunk = segment_.geometry().slot_bytes;
  const std::size_t chunks = std::max<std::size_t>(1, chunk_count(data.size(), per_chunk));
  const std::uint64_t first = next_chunk_;
  next_chunk_ += chunks;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::uint64_t g = first + c;
    const Range r = chunk(data.size(), per_chunk, c);
    const auto piece = data.subspan(r.offset, r.count);
    if (rank_ == root) {
      if (auto ok = await_free(g); !ok) return ok;
      post(g, header, piece, {piece.size(), 0});
    } else {
      if (auto ok = await_posted(g, header, root); !ok) return ok;
      std::memcpy(piece.data(), slot(root, g), piece.size());
    }
    sync_.publish(Phase::drained, g + 1);
  }
  return {};
}

Status ShmCommunicator::await_free(std::uint64_t g) {
  const auto depth = static_cast<std::uint64_t>(segment_.geometry().depth);
  if (g < depth) return {};
  return sync_.wait_all(Phase::drained, g - depth + 1);
}

void ShmCommunicator::post(std::uint64_t g, const CallHeader& header, std::span<const std::byte> payload, Range skip) {
  std::memcpy(slot(rank_, g), payload.data(), skip.offset);
  const std::size_t tail = skip.offset + skip.count;
  std::memcpy(slot(rank_, g) + tail, payload.data() + tail, payload.size() - tail);
  segment_.line(rank_).call[g % static_cast<std::uint64_t>(segment_.geometry().depth)] = header;
  sync_.publish(Phase::posted, g + 1);
}

Status ShmCommunicator::await_posted(std::uint64_t g, const CallHeader& header, int peer) {
  const auto buffer = g % static_cast<std::uint64_t>(segment_.geometry().depth);
  for (int r = 0; r < size(); ++r) {
    if (r == rank_ || (peer >= 0 && r != peer)) continue;
    if (auto ok = sync_.wait(r, Phase::posted, g + 1); !ok) return ok;
    const CallHeader& theirs = segment_.line(r).call[buffer];
    if (!(theirs == header)) {
      return fail(Error::invalid_argument("rank " + std::to_string(r) + " is in " + describe(theirs) +
                                          ", this rank in " + describe(header)));
    }
  }
  return {};
}

std::byte* ShmCommunicator::slot(int rank, std::uint64_t g) const {
  return segment_.slot(rank, static_cast<int>(g % static_cast<std::uint64_t>(segment_.geometry().depth)));
}

Status ShmCommunicator::finish(Status outcome, const CallHeader& header) {
  if (outcome) return outcome;
  sync_.abort();
  const Error& e = outcome.error();
  return latch_.record(fail({e.code, "shm " + describe(header) + " on rank " + std::to_string(rank_) + ": " + e.message}));
}

}  // namespace volador::collective
