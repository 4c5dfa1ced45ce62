// nccl-direct-allreduce-bench RANKS MIN_BYTES MAX_BYTES: the peer of
// volador-allreduce-bench --backend nccl, calling NCCL directly: one forked
// process per rank on its own CUDA device, float32 device buffers reduced in
// place, one ncclAllReduce + cudaStreamSynchronize per call (complete on the
// GPU when the call returns, as ours), timed exactly like ours.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "bench/allreduce/gpu_ranks.hpp"

namespace {

using namespace volador::bench;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::seconds kIdWait{60};
constexpr const char* kImpl = "nccl-direct";

bool cuda_ok(cudaError_t e, const char* what, int rank) {
  if (e != cudaSuccess) std::fprintf(stderr, "rank %d: %s: %s\n", rank, what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

bool nccl_ok(ncclResult_t r, const char* what, int rank) {
  if (r != ncclSuccess) std::fprintf(stderr, "rank %d: %s: %s\n", rank, what, ncclGetErrorString(r));
  return r == ncclSuccess;
}

// One rank's NCCL communicator, stream and buffers, released in reverse order of setup.
struct RankState {
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* buffer = nullptr;  // the data reduced, as large as the last step
  float* token = nullptr;   // one float, reduced as the barrier
  ~RankState() {
    if (comm != nullptr) ncclCommDestroy(comm);
    if (token != nullptr) cudaFree(token);
    if (buffer != nullptr) cudaFree(buffer);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

// The sum of `count` floats at `data` in place, complete on the GPU when it returns.
bool allreduce(const RankState& s, float* data, std::size_t count) {
  return nccl_ok(ncclAllReduce(data, data, count, ncclFloat32, ncclSum, s.comm, s.stream), "ncclAllReduce", s.rank) &&
         cuda_ok(cudaStreamSynchronize(s.stream), "cudaStreamSynchronize", s.rank);
}

// The group id: rank 0 makes it and hands it to the others through `handoff`.
bool group_id(int rank, Handoff& handoff, ncclUniqueId& id) {
  auto bytes = std::as_writable_bytes(std::span(id.internal));
  if (rank != 0) {
    if (handoff.await(bytes, kIdWait)) return true;
    std::fprintf(stderr, "rank %d: no NCCL group id from rank 0 within 60 s\n", rank);
    return false;
  }
  if (!nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId", rank)) {
    handoff.abandon();
    return false;
  }
  handoff.publish(bytes);
  return true;
}

// Device, stream, zeroed buffers of `bytes` and the communicator, as NcclCommunicator::join sets them up.
bool set_up(RankState& s, int ranks, const ncclUniqueId& id, std::size_t bytes) {
  const int device = rank_device(s.rank);
  return device >= 0 && cuda_ok(cudaSetDevice(device), "cudaSetDevice", s.rank) &&
         cuda_ok(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "cudaStreamCreate", s.rank) &&
         cuda_ok(cudaMalloc(reinterpret_cast<void**>(&s.token), sizeof(float)), "cudaMalloc", s.rank) &&
         cuda_ok(cudaMalloc(reinterpret_cast<void**>(&s.buffer), bytes), "cudaMalloc", s.rank) &&
         cuda_ok(cudaMemset(s.buffer, 0, bytes), "cudaMemset", s.rank) &&
         cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", s.rank) &&
         nccl_ok(ncclCommInitRank(&s.comm, ranks, id, s.rank), "ncclCommInitRank", s.rank);
}

// One rank: join the group, then time every step; rank 0 prints.
int run_rank(int rank, int ranks, Handoff& handoff, const std::vector<Step>& steps, RankTimes& times) {
  RankState s;
  s.rank = rank;
  ncclUniqueId id{};
  const std::size_t bytes = std::max(steps.empty() ? 0 : steps.back().bytes, sizeof(float));
  if (!group_id(rank, handoff, id) || !set_up(s, ranks, id, bytes)) return 1;
  for (const Step& step : steps) {
    const std::size_t count = step.bytes / sizeof(float);
    for (int i = 0; i < step.warmup; ++i) (void)allreduce(s, s.buffer, count);
    if (!allreduce(s, s.token, 1)) return 1;
    const auto start = Clock::now();
    for (int i = 0; i < step.iters; ++i) {
      if (!allreduce(s, s.buffer, count)) return 1;
    }
    times.set(rank, std::chrono::duration<double>(Clock::now() - start).count() / step.iters);
    if (!allreduce(s, s.token, 1)) return 1;
    if (rank == 0) report(kImpl, ranks, step, times.slowest());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 1;
  const auto steps = plan(parse_size(argc > 2 ? argv[2] : "8"), parse_size(argc > 3 ? argv[3] : "256M"));
  if (ranks < 1) {
    std::fprintf(stderr, "usage: nccl-direct-allreduce-bench RANKS MIN_BYTES MAX_BYTES (RANKS >= 1)\n");
    return 2;
  }
  if (!gpus_fit(ranks)) return 1;
  Handoff handoff(sizeof(ncclUniqueId));
  RankTimes times(ranks);
  print_table_header(kImpl, ranks);
  const bool ok = run_forked(ranks, [&](int rank) { return run_rank(rank, ranks, handoff, steps, times); });
  return ok ? 0 : 1;
}
