#include "runtime/collective/tests/conformance.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runtime/collective/reduce_kernels.hpp"

namespace volador::collective::testing {

namespace {

constexpr std::size_t kGuard = 16;
constexpr std::uint32_t kPoisonBits = 0x7fc0dead;  // a NaN no arithmetic here produces
constexpr std::byte kPoisonByte{0xcd};
constexpr std::uint16_t kHalfPoison = 0x7d5a;  // f16: a NaN; bf16: 1.8e37; no sum here is either

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Byte i of a broadcast's payload: one mix per 8 bytes keeps big checks cheap.
std::vector<std::byte> pattern(std::uint64_t salt, std::size_t bytes) {
  std::vector<std::byte> out(bytes);
  for (std::size_t i = 0; i < bytes; i += 8) {
    const std::uint64_t word = mix(salt ^ i);
    std::memcpy(out.data() + i, &word, std::min<std::size_t>(8, bytes - i));
  }
  return out;
}

std::uint64_t fingerprint(std::span<const std::byte> bytes) {
  std::uint64_t h = bytes.size();
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data() + i, std::min<std::size_t>(8, bytes.size() - i));
    h = mix(h ^ word);
  }
  return h;
}

Error problem(Communicator& comm, const std::string& what) {
  return Error::internal("rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) + ": " + what);
}

// Every rank must hold the same `value` as rank 0.
Status agree(Communicator& comm, std::uint64_t value, const std::string& what) {
  std::uint64_t root_value = value;
  if (auto sent = comm.broadcast(std::as_writable_bytes(std::span(&root_value, 1)), 0); !sent) return sent;
  if (root_value != value) return fail(problem(comm, what + " differs from rank 0's"));
  return {};
}

std::vector<float> poisoned_floats(std::size_t count) {
  return std::vector<float>(count + 2 * kGuard, std::bit_cast<float>(kPoisonBits));
}

bool guards_intact(std::span<const float> buffer) {
  auto poisoned = [](float f) { return std::bit_cast<std::uint32_t>(f) == kPoisonBits; };
  for (std::size_t i = 0; i < kGuard; ++i) {
    if (!poisoned(buffer[i]) || !poisoned(buffer[buffer.size() - 1 - i])) return false;
  }
  return true;
}

Status verify_sum(Communicator& comm, std::span<const float> got, std::uint64_t salt, ReduceOp op) {
  const int n = comm.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    double sum = 0.0, magnitude = 0.0;
    for (int r = 0; r < n; ++r) {
      const double x = input_value(salt, r, i);
      sum += x;
      magnitude += std::fabs(x);
    }
    if (op == ReduceOp::avg) {
      sum /= n;
      magnitude /= n;
    }
    const double tolerance = (n + 2) * std::ldexp(magnitude, -23) + 1e-30;
    if (!(std::fabs(got[i] - sum) <= tolerance)) {
      return fail(problem(comm, "element " + std::to_string(i) + " of " + std::to_string(got.size()) + " is " +
                                    std::to_string(got[i]) + ", expected " + std::to_string(sum)));
    }
  }
  return {};
}

Status check_one_allreduce(Communicator& comm, std::uint64_t seed, std::size_t count, ReduceOp op) {
  const std::uint64_t salt = mix(seed ^ (count << 1) ^ static_cast<std::uint64_t>(op));
  const std::string what = std::string(op == ReduceOp::sum ? "sum" : "avg") + " of " + std::to_string(count) + " floats";
  std::vector<float> buffer = poisoned_floats(count);
  auto data = std::span(buffer).subspan(kGuard, count);
  for (std::size_t i = 0; i < count; ++i) data[i] = input_value(salt, comm.rank(), i);
  if (auto ok = comm.allreduce(data, op); !ok) return fail(problem(comm, what + ": " + ok.error().message));
  if (!guards_intact(buffer)) return fail(problem(comm, what + ": wrote outside the buffer"));
  // Rank 0 checks every element; the others must match it bit for bit.
  if (comm.rank() == 0) {
    if (auto ok = verify_sum(comm, data, salt, op); !ok) return fail(problem(comm, what + ": " + ok.error().message));
  }
  return agree(comm, fingerprint(std::as_bytes(data)), what + ": result");
}

float from_half(DType type, std::uint16_t bits) { return type == DType::f16 ? f16_to_float(bits) : bf16_to_float(bits); }
std::uint16_t to_half(DType type, float f) { return type == DType::f16 ? float_to_f16(f) : float_to_bf16(f); }

// Rank `rank`'s half input: input_value rounded to `type`, so it is exact there.
float half_input(DType type, std::uint64_t salt, int rank, std::size_t i) {
  return from_half(type, to_half(type, input_value(salt, rank, i)));
}

// A half result must be the float32 sum rounded once: within half an ulp of
// `type` (relative 2^-11 for f16, 2^-8 for bf16; absolute below the normal
// range) of a value within float32 accumulation error of the exact sum.
// Rounding at every hop of a ring would exceed this.
Status verify_half_sum(Communicator& comm, std::span<const std::uint16_t> got, std::uint64_t salt, ReduceOp op,
                       DType type) {
  const int n = comm.size();
  const double half_ulp = type == DType::f16 ? 0x1p-11 : 0x1p-8;
  const double least = type == DType::f16 ? 0x1p-25 : 0x1p-134;
  for (std::size_t i = 0; i < got.size(); ++i) {
    double sum = 0.0, magnitude = 0.0;
    for (int r = 0; r < n; ++r) {
      const double x = half_input(type, salt, r, i);
      sum += x;
      magnitude += std::fabs(x);
    }
    if (op == ReduceOp::avg) {
      sum /= n;
      magnitude /= n;
    }
    const double accumulated = (n + 2) * std::ldexp(magnitude, -23);
    const double tolerance = accumulated + half_ulp * (std::fabs(sum) + accumulated) + least;
    const double value = from_half(type, got[i]);
    if (!(std::fabs(value - sum) <= tolerance)) {
      return fail(problem(comm, "element " + std::to_string(i) + " of " + std::to_string(got.size()) + " is " +
                                    std::to_string(value) + ", expected " + std::to_string(sum) + " within " +
                                    std::to_string(tolerance)));
    }
  }
  return {};
}

Status check_one_half_allreduce(Communicator& comm, std::uint64_t seed, std::size_t count, ReduceOp op, DType type) {
  const std::uint64_t salt = mix(seed ^ (count << 1) ^ static_cast<std::uint64_t>(op) ^ (static_cast<std::uint64_t>(type) << 60));
  const std::string what = std::string(op == ReduceOp::sum ? "sum" : "avg") + " of " + std::to_string(count) + " " +
                           std::string(dtype_name(type)) + " elements";
  std::vector<std::uint16_t> buffer(count + 2 * kGuard, kHalfPoison);
  auto data = std::span(buffer).subspan(kGuard, count);
  for (std::size_t i = 0; i < count; ++i) data[i] = to_half(type, input_value(salt, comm.rank(), i));
  if (auto ok = comm.allreduce(std::as_writable_bytes(data), type, op); !ok) {
    return fail(problem(comm, what + ": " + ok.error().message));
  }
  for (std::size_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != kHalfPoison || buffer[buffer.size() - 1 - i] != kHalfPoison) {
      return fail(problem(comm, what + ": wrote outside the buffer"));
    }
  }
  if (comm.rank() == 0) {
    if (auto ok = verify_half_sum(comm, data, salt, op, type); !ok) return fail(problem(comm, what + ": " + ok.error().message));
  }
  return agree(comm, fingerprint(std::as_bytes(data)), what + ": result");
}

Status check_one_broadcast(Communicator& comm, std::uint64_t seed, std::size_t bytes, int root) {
  const std::uint64_t salt = mix(seed ^ bytes ^ (static_cast<std::uint64_t>(root) << 40));
  const std::string what = "broadcast of " + std::to_string(bytes) + " bytes from rank " + std::to_string(root);
  const std::size_t guard = kGuard * sizeof(float);
  std::vector<std::byte> buffer(bytes + 2 * guard, kPoisonByte);
  auto data = std::span(buffer).subspan(guard, bytes);
  const std::vector<std::byte> expected = pattern(salt, bytes);
  if (comm.rank() == root) std::ranges::copy(expected, data.begin());
  if (auto ok = comm.broadcast(data, root); !ok) return fail(problem(comm, what + ": " + ok.error().message));
  for (std::size_t i = 0; i < guard; ++i) {
    if (buffer[i] != kPoisonByte || buffer[buffer.size() - 1 - i] != kPoisonByte) {
      return fail(problem(comm, what + ": wrote outside the buffer"));
    }
  }
  const auto [differs, _] = std::ranges::mismatch(data, expected);
  if (differs != data.end()) {
    return fail(problem(comm, what + ": byte " + std::to_string(differs - data.begin()) + " differs"));
  }
  return {};
}

}  // namespace

float input_value(std::uint64_t salt, int rank, std::size_t i) {
  const std::uint64_t u = mix(salt ^ mix(static_cast<std::uint64_t>(rank) + 1) ^ (i * 0x9e3779b97f4a7c15ULL));
  return static_cast<float>(u >> 40) * 0x1p-23f - 1.0f;
}

Status check_allreduce(Communicator& comm, std::uint64_t seed, std::span<const std::size_t> counts, DType type) {
  for (std::size_t count : counts) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
      auto ok = type == DType::f32 ? check_one_allreduce(comm, seed, count, op)
                                   : check_one_half_allreduce(comm, seed, count, op, type);
      if (!ok) return ok;
    }
  }
  return {};
}

Status check_broadcast(Communicator& comm, std::uint64_t seed, std::span<const std::size_t> byte_counts) {
  const int n = comm.size();
  for (std::size_t bytes : byte_counts) {
    for (int root : {0, n - 1, n / 2}) {
      if (auto ok = check_one_broadcast(comm, seed, bytes, root); !ok) return ok;
    }
  }
  return {};
}

Status check_barrier(Communicator& comm, std::atomic<int>& arrivals, int rounds) {
  const int n = comm.size();
  for (int round = 0; round < rounds; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(comm.rank()));  // late arrivals
    arrivals.fetch_add(1);
    if (auto ok = comm.barrier(); !ok) return fail(problem(comm, "barrier: " + ok.error().message));
    if (arrivals.load() < n * (round + 1)) {
      return fail(problem(comm, "left barrier round " + std::to_string(round) + " before every rank arrived"));
    }
  }
  return {};
}

Status check_collectives(Communicator& comm, std::uint64_t seed, std::atomic<int>& arrivals) {
  for (DType type : {DType::f32, DType::f16, DType::bf16}) {
    if (auto ok = check_allreduce(comm, seed, kAllreduceCounts, type); !ok) return ok;
  }
  if (auto ok = check_broadcast(comm, seed, kBroadcastBytes); !ok) return ok;
  return check_barrier(comm, arrivals, 3);
}

std::vector<RankReport> run_with_victim(int n, int victim, const JoinFn& join,
                                        const std::function<void()>& misbehave) {
  return run_in_processes(n, [&](int rank) -> Status {
    auto comm = join(rank);
    if (!comm) return fail(comm.error());
    if (rank == victim) misbehave();
    std::vector<float> data(1 << 18, 1.0f);
    for (;;) {
      if (auto ok = (*comm)->allreduce(data, ReduceOp::avg); !ok) return ok;
    }
  }, std::chrono::seconds(10));
}

}  // namespace volador::collective::testing
