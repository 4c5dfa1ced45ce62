#include "bench/allreduce/nccl_ranks.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "bench/allreduce/gpu_ranks.hpp"
#include "bench/allreduce/timed_allreduce.hpp"
#include "runtime/collective/nccl_communicator.hpp"

namespace volador::bench {

namespace {

constexpr std::chrono::seconds kIdWait{60};

// The group id: rank 0 makes it and hands it to the others through `handoff`.
Result<collective::NcclId> group_id(int rank, Handoff& handoff) {
  if (rank != 0) {
    collective::NcclId id{};
    if (handoff.await(id, kIdWait)) return id;
    return fail(Error::unavailable("no NCCL group id from rank 0 within 60 s"));
  }
  auto id = collective::make_nccl_id();
  if (id) handoff.publish(*id);
  else handoff.abandon();
  return id;
}

struct CudaFree {
  void operator()(std::byte* p) const { cudaFree(p); }
};
using DeviceBuffer = std::unique_ptr<std::byte, CudaFree>;

// `bytes` of zeroed memory on the current device; null, said on stderr, when CUDA refuses.
DeviceBuffer zeroed_device_buffer(std::size_t bytes, int rank) {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  DeviceBuffer buffer(static_cast<std::byte*>(p));
  if (e == cudaSuccess) e = cudaMemset(p, 0, bytes);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return buffer;
  std::fprintf(stderr, "rank %d: device buffer of %zu bytes: %s\n", rank, bytes, cudaGetErrorString(e));
  return nullptr;
}

// One rank: get the id, join the group on this rank's device, time every step.
int run_rank(int rank, int ranks, Handoff& handoff, const std::vector<Step>& steps, RankTimes& times,
             collective::DType type, const std::string& impl) {
  auto id = group_id(rank, handoff);
  if (!id) {
    std::fprintf(stderr, "rank %d: %s\n", rank, id.error().message.c_str());
    return 1;
  }
  const int device = rank_device(rank);
  if (device < 0) return 1;
  auto comm = collective::NcclCommunicator::join(*id, rank, ranks, device);
  if (!comm) {
    std::fprintf(stderr, "rank %d: %s\n", rank, comm.error().message.c_str());
    return 1;
  }
  const std::size_t bytes = steps.empty() ? 0 : steps.back().bytes;
  DeviceBuffer buffer = zeroed_device_buffer(std::max(bytes, sizeof(float)), rank);
  if (buffer == nullptr) return 1;
  return time_allreduce_steps(**comm, std::span(buffer.get(), bytes), steps, type, times, impl);
}

}  // namespace

int run_nccl_ranks(int ranks, const std::vector<Step>& steps, collective::DType type, const std::string& impl) {
  if (!gpus_fit(ranks)) return 1;
  Handoff handoff(sizeof(collective::NcclId));
  RankTimes times(ranks);
  print_table_header(impl, ranks);
  const bool ok = run_forked(ranks, [&](int rank) { return run_rank(rank, ranks, handoff, steps, times, type, impl); });
  return ok ? 0 : 1;
}

}  // namespace volador::bench
