#include "bench/allreduce/gpu_ranks.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "bench/allreduce/bench_common.hpp"

namespace volador::bench {

namespace {

// The number of CUDA devices; 0, said on stderr, when there is none.
int device_count() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess) {
    std::fprintf(stderr, "no CUDA device: %s (%s)\n", cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
  }
  if (devices == 0) std::fprintf(stderr, "no CUDA device: cudaGetDeviceCount found none\n");
  return devices;
}

}  // namespace

bool gpus_fit(int ranks) {
  return run_forked(1, [ranks](int) {
    const int devices = device_count();
    if (devices == 0) return 1;
    if (ranks <= devices) return 0;
    std::fprintf(stderr, "%d ranks need %d CUDA devices, this machine has %d (NCCL refuses two ranks on one device)\n",
                 ranks, ranks, devices);
    return 1;
  });
}

int rank_device(int rank) {
  const int devices = device_count();
  return devices == 0 ? -1 : rank % devices;
}

}  // namespace volador::bench
