#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <vector>

#include "runtime/collective/nccl_communicator.hpp"

using namespace volador;
using namespace volador::collective;

namespace {
bool have_gpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}
}  // namespace

// One GPU allows one NCCL rank (NCCL refuses two ranks on one device), so
// this checks a one-rank group end to end; multi-rank runs need more GPUs.
TEST_CASE("nccl: a one-rank group reduces, broadcasts and refuses host memory") {
  if (!have_gpu()) {
    WARN("no CUDA device: the NCCL backend was built but not run");
    return;
  }
  auto id = make_nccl_id();
  REQUIRE(id.has_value());
  auto comm = NcclCommunicator::join(*id, 0, 1, 0);
  REQUIRE(comm.has_value());
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  float* device = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), host.size() * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK((*comm)->allreduce(std::span(device, host.size()), ReduceOp::avg).has_value());
  CHECK((*comm)->broadcast(std::as_writable_bytes(std::span(device, host.size())), 0).has_value());
  CHECK((*comm)->barrier().has_value());
  std::vector<float> back(host.size());
  REQUIRE(cudaMemcpy(back.data(), device, back.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == host);
  const Status refused = (*comm)->allreduce(host, ReduceOp::sum);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  cudaFree(device);
}
