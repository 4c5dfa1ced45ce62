#pragma once
// Where data goes in the collectives, as pure functions of (count, ranks,
// rank, step): block and chunk boundaries, the ring allreduce's steps and
// the broadcast chain. Counts and offsets are in elements.

#include <cstddef>

namespace volador::collective {

struct Range {
  std::size_t offset = 0;
  std::size_t count = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

// Block i of n contiguous, ordered, near-equal blocks covering `count`
// elements. Every block boundary is a multiple of `grain` (cache-line
// alignment); blocks at the end may be empty when count is small.
[[nodiscard]] Range block(std::size_t count, int n, int i, std::size_t grain = 1);

// `count` elements cut into chunks of `chunk` elements; the last is shorter.
[[nodiscard]] std::size_t chunk_count(std::size_t count, std::size_t chunk);
[[nodiscard]] Range chunk(std::size_t count, std::size_t chunk, std::size_t c);

// Step t, 0 <= t < ring_steps(n), of the ring allreduce for `rank`: n-1
// reduce-scatter steps (the received block is added in), then n-1
// all-gather steps (it is copied). The block sent at step t+1 is the one
// received at step t, so a rank forwards data as soon as it has folded it.
struct RingStep {
  int send_block = 0;
  int recv_block = 0;
  bool reduce = false;
};
[[nodiscard]] int ring_steps(int n);
[[nodiscard]] RingStep ring_step(int n, int rank, int t);
// The block `rank` holds fully reduced after the reduce-scatter.
[[nodiscard]] int owned_block(int n, int rank);

// Recursive doubling runs among the largest power of two <= n ranks; rank
// r >= that base first folds its data into rank r - base.
[[nodiscard]] int doubling_base(int n);

// Broadcast chain root -> root+1 -> ... -> root-1 (mod n): the rank this one
// forwards to and the one it receives from, -1 for none.
[[nodiscard]] int chain_next(int n, int root, int rank);
[[nodiscard]] int chain_prev(int n, int root, int rank);

}  // namespace volador::collective
