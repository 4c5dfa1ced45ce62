#pragma once
// The shared-memory segment's layout: a header, one control line per rank
// and the data slots (per rank, `depth` pipeline buffers of one chunk each),
// with its size math as pure functions. The control structures are plain
// data accessed through std::atomic_ref, since the segment is shared by
// processes.

#include <cstddef>
#include <cstdint>

#include "runtime/collective/call_header.hpp"
#include "runtime/core/error.hpp"

namespace volador::collective {

inline constexpr std::size_t kCacheLine = 64;
inline constexpr int kMaxDepth = 4;
inline constexpr std::uint64_t kShmMagic = 0x766f6c61646f7231ULL;  // "volador1"

struct ShmGeometry {
  int ranks = 0;
  int depth = 0;                // pipeline buffers per rank, at least 2
  std::size_t slot_bytes = 0;   // one chunk of one rank: a multiple of 64
  [[nodiscard]] std::size_t control_bytes() const;
  [[nodiscard]] std::size_t total_bytes() const;
  [[nodiscard]] std::size_t slot_offset(int rank, int buffer) const;
  friend bool operator==(const ShmGeometry&, const ShmGeometry&) = default;
};

// The largest slots up to the preferred size that fit `limit_bytes`, never
// below 4 KiB per rank's block. Error resource_exhausted when nothing fits.
[[nodiscard]] Result<ShmGeometry> plan_geometry(int ranks, std::size_t limit_bytes);

struct ShmHeader {
  std::uint64_t magic;
  std::uint32_t ranks;
  std::uint32_t depth;
  std::uint64_t slot_bytes;
  alignas(kCacheLine) std::uint32_t ready;     // 1 once the creator wrote the fields above
  alignas(kCacheLine) std::uint32_t attached;  // ranks that have mapped the segment
  alignas(kCacheLine) std::uint32_t aborted;   // 0, or 1 + the rank that gave up
  alignas(kCacheLine) std::uint32_t wake_epoch;  // futex word: bumped to wake sleepers
  alignas(kCacheLine) std::uint32_t sleepers;    // ranks sleeping on wake_epoch
};

// Progress counters: chunks this rank has finished, per phase.
enum class Phase { posted = 0, reduced = 1, drained = 2 };

// Written only by its rank, read by all.
struct alignas(kCacheLine) ShmRankLine {
  std::uint64_t done[3];             // indexed by Phase
  std::int32_t pid;                  // set when the rank attaches
  std::uint32_t departed;            // 1 once the rank closed its communicator
  CallHeader call[kMaxDepth];        // the call each buffer's chunk belongs to
};

}  // namespace volador::collective
