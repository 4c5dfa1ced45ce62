#pragma once
// The checks every backend must pass, run by each rank of a test group:
// allreduce (sum, avg; f32, f16, bf16) over sizes that reach every code path, compared with
// a float64 reference, with guard cells around each buffer and bitwise
// agreement across ranks; broadcast from several roots into poisoned
// buffers; barrier. Each returns the first problem as an error. And the
// failure scenario every backend must detect: a rank that misbehaves
// mid-allreduce.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "runtime/collective/communicator.hpp"
#include "runtime/collective/tests/group_harness.hpp"

namespace volador::collective::testing {

// Element counts: empty, one, odd, not divisible by 2..8, around the small-
// message thresholds, several shm chunks, a few MiB.
inline constexpr std::array<std::size_t, 8> kAllreduceCounts{0, 1, 7, 1009, 4096, 4099, 300'007, 786'439};
inline constexpr std::array<std::size_t, 6> kBroadcastBytes{0, 1, 13, 16'384, 65'539, 3'145'729};

// Half types (f16, bf16) must also be rounded once, from a float32 sum.
[[nodiscard]] Status check_allreduce(Communicator& comm, std::uint64_t seed, std::span<const std::size_t> counts,
                                     DType type = DType::f32);
[[nodiscard]] Status check_broadcast(Communicator& comm, std::uint64_t seed, std::span<const std::size_t> byte_counts);
// `arrivals` is shared by the group's ranks (a MAP_SHARED page for processes).
[[nodiscard]] Status check_barrier(Communicator& comm, std::atomic<int>& arrivals, int rounds);

// The whole suite on one rank: check_allreduce over kAllreduceCounts in f32,
// f16 and bf16, check_broadcast over kBroadcastBytes, then 3 barrier rounds.
[[nodiscard]] Status check_collectives(Communicator& comm, std::uint64_t seed, std::atomic<int>& arrivals);

// Opens rank `rank`'s communicator; runs in that rank's process.
using JoinFn = std::function<Result<std::unique_ptr<Communicator>>(int rank)>;

// n forked ranks join; rank `victim` then runs `misbehave`, and every rank
// allreduces 1 MiB of floats in a loop until a call fails. Ranks still
// running after 10 s are killed (and reported so).
[[nodiscard]] std::vector<RankReport> run_with_victim(int n, int victim, const JoinFn& join,
                                                      const std::function<void()>& misbehave);

// Rank `rank`'s input for a test salted by `salt`: uniform in [-1, 1).
[[nodiscard]] float input_value(std::uint64_t salt, int rank, std::size_t i);

}  // namespace volador::collective::testing
