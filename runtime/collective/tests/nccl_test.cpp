#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "runtime/collective/device_group.hpp"
#include "runtime/collective/nccl_communicator.hpp"
#include "runtime/collective/tests/tcp_fixture.hpp"

using namespace volador;
using namespace volador::collective;
using namespace volador::collective::testing;

namespace {
bool have_gpu() {
  int devices = 0;
  return cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
}

// A one-rank NCCL group on device 0.
std::unique_ptr<NcclCommunicator> one_rank_group() {
  auto id = make_nccl_id();
  REQUIRE(id.has_value());
  auto comm = NcclCommunicator::join(*id, 0, 1, 0);
  REQUIRE(comm.has_value());
  return std::move(*comm);
}
}  // namespace

// One GPU allows one NCCL rank (NCCL refuses two ranks on one device), so
// this checks a one-rank group end to end; multi-rank runs need more GPUs.
TEST_CASE("nccl: a one-rank group reduces, broadcasts and refuses host memory") {
  if (!have_gpu()) {
    WARN("no CUDA device: the NCCL backend was built but not run");
    return;
  }
  auto comm = one_rank_group();
  std::vector<float> host(1000);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  float* device = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), host.size() * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(comm->allreduce(std::span(device, host.size()), ReduceOp::avg).has_value());
  CHECK(comm->broadcast(std::as_writable_bytes(std::span(device, host.size())), 0).has_value());
  CHECK(comm->barrier().has_value());
  std::vector<float> back(host.size());
  REQUIRE(cudaMemcpy(back.data(), device, back.size() * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == host);
  const Status refused = comm->allreduce(host, ReduceOp::sum);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  cudaFree(device);
}

// Forming through a one-rank host group, then the calls a Python trial's
// gradient buckets and a C++ trial's average make (a ready event from
// another stream; several buffers in one group call).
TEST_CASE("nccl: a one-rank device group forms over its host group and reduces device buffers") {
  if (!have_gpu()) {
    WARN("no CUDA device: the device group was built but not run");
    return;
  }
  REQUIRE(local_device_support().has_value());
  TcpGroup group(1);
  auto host = group.connect(0);
  REQUIRE(host.has_value());
  DeviceGroup device(**host, {});
  const Status formed = device.form(local_device_support());
  INFO((formed ? std::string("formed") : formed.error().message));
  REQUIRE(formed.has_value());
  REQUIRE(device.formed());

  constexpr std::size_t kCount = std::size_t{16} << 20;  // 64 MiB: the copy is still running when the event is queued
  std::vector<float> values(kCount, 3.0f);
  float* a = nullptr;
  float* b = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&a), kCount * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&b), kCount * sizeof(float)) == cudaSuccess);
  cudaStream_t producer = nullptr;
  cudaEvent_t ready = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(a, values.data(), kCount * sizeof(float), cudaMemcpyHostToDevice, producer) == cudaSuccess);
  REQUIRE(cudaEventRecord(ready, producer) == cudaSuccess);
  const auto a_bytes = std::as_writable_bytes(std::span(a, kCount));
  CHECK(device.allreduce(a_bytes, DType::f32, ReduceOp::avg, reinterpret_cast<std::uintptr_t>(ready)).has_value());
  REQUIRE(cudaMemcpy(b, a, kCount * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
  const std::vector<std::span<std::byte>> both{a_bytes, std::as_writable_bytes(std::span(b, kCount))};
  CHECK(device.allreduce_each(both, DType::f32, ReduceOp::sum).has_value());
  std::vector<float> back(kCount);
  REQUIRE(cudaMemcpy(back.data(), b, kCount * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back == values);
  CHECK(is_device_memory(a));
  CHECK_FALSE(is_device_memory(values.data()));
  cudaEventDestroy(ready);
  cudaStreamDestroy(producer);
  cudaFree(a);
  cudaFree(b);
}

// Every element type and reduction on device buffers; with one rank each
// leaves the values as they are (bit for bit), so NCCL's type mapping and
// the in-place calls are what is checked.
TEST_CASE("nccl: every element type and reduction on device buffers of a one-rank group") {
  if (!have_gpu()) {
    WARN("no CUDA device: the NCCL backend was built but not run");
    return;
  }
  auto comm = one_rank_group();
  std::vector<std::byte> pattern(4096 * 4 + 8);
  // Every 2-byte half's high byte is 0x30-0x3f: normal, finite values as float32, float16 and bfloat16 alike.
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    pattern[i] = static_cast<std::byte>(i % 2 == 1 ? 0x30 | ((i * 7) & 0x0f) : (i * 37 + 11) & 0xff);
  }
  std::byte* device = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), pattern.size()) == cudaSuccess);
  for (const DType type : {DType::f32, DType::f16, DType::bf16}) {
    for (const ReduceOp op : {ReduceOp::sum, ReduceOp::avg}) {
      INFO("type " << static_cast<int>(type) << " op " << static_cast<int>(op));
      REQUIRE(cudaMemcpy(device, pattern.data(), pattern.size(), cudaMemcpyHostToDevice) == cudaSuccess);
      CHECK(comm->allreduce(std::span(device, pattern.size()), type, op).has_value());
      std::vector<std::byte> back(pattern.size());
      REQUIRE(cudaMemcpy(back.data(), device, back.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(back == pattern);
    }
  }
  const Status misshapen = comm->allreduce(std::span(device, 6), DType::f32, ReduceOp::sum);
  REQUIRE_FALSE(misshapen.has_value());
  CHECK(misshapen.error().code == ErrorCode::invalid_argument);
  cudaFree(device);
}
