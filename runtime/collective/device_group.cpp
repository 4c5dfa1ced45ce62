#include "runtime/collective/device_group.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#if VOLADOR_HAVE_NCCL
#include <cuda_runtime_api.h>

#include "runtime/collective/nccl_communicator.hpp"
#endif

namespace volador::collective {

#if VOLADOR_HAVE_NCCL
struct DeviceGroup::Nccl {
  std::unique_ptr<NcclCommunicator> comm;
};
#else
struct DeviceGroup::Nccl {};
#endif

namespace {

// The ranks whose flag is set, as "1, 3".
std::string rank_list(std::span<const float> flags) {
  std::string out;
  for (std::size_t r = 0; r < flags.size(); ++r) {
    if (flags[r] == 0.0f) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(r);
  }
  return out;
}

// Every rank learns which ranks set `raised`; error when the host group fails.
Result<std::vector<float>> ranks_raising(Communicator& host, bool raised) {
  std::vector<float> flags(static_cast<std::size_t>(host.size()), 0.0f);
  flags[static_cast<std::size_t>(host.rank())] = raised ? 1.0f : 0.0f;
  if (auto ok = host.allreduce(flags, ReduceOp::sum); !ok) return fail(ok.error());
  return flags;
}

bool any(std::span<const float> flags) {
  return std::any_of(flags.begin(), flags.end(), [](float f) { return f != 0.0f; });
}

Error refusal(std::span<const float> unable, const Status& local) {
  std::string text = "GPU collectives are off for this trial: rank(s) " + rank_list(unable) + " cannot use them";
  text += local ? " (this rank could)" : " (this rank: " + local.error().message + ")";
  return Error::unavailable(text);
}

}  // namespace

#if VOLADOR_HAVE_NCCL

Status local_device_support() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess) {
    cudaGetLastError();
    return fail(Error::unavailable(std::string("no CUDA device visible (") + cudaGetErrorString(e) + ")"));
  }
  if (devices == 0) return fail(Error::unavailable("no CUDA device visible"));
  return {};
}

bool is_device_memory(const void* p) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

namespace {

// Rank 0 makes the NCCL id and broadcasts it, with whether it could, over the host group.
Result<NcclId> shared_nccl_id(Communicator& host) {
  std::array<std::byte, 1 + sizeof(NcclId)> message{};
  std::string reason;
  if (host.rank() == 0) {
    if (auto id = make_nccl_id(); id) {
      message[0] = std::byte{1};
      std::memcpy(message.data() + 1, id->data(), id->size());
    } else {
      reason = id.error().message;
    }
  }
  if (auto ok = host.broadcast(message, 0); !ok) return fail(ok.error());
  if (message[0] != std::byte{1}) {
    return fail(Error::unavailable("rank 0 could not make an NCCL id" + (reason.empty() ? "" : ": " + reason)));
  }
  NcclId id{};
  std::memcpy(id.data(), message.data() + 1, id.size());
  return id;
}

}  // namespace

// This rank's member of the NCCL group: rank 0's id, the rank's device 0.
Result<std::unique_ptr<DeviceGroup::Nccl>> DeviceGroup::join_nccl() {
  auto id = shared_nccl_id(host_);
  if (!id) return fail(id.error());
  auto joined = NcclCommunicator::join(*id, host_.rank(), host_.size(), 0, options_);
  if (!joined) return fail(joined.error());
  auto nccl = std::make_unique<Nccl>();
  nccl->comm = std::move(*joined);
  return nccl;
}

#else  // a build without NCCL: no rank can join, and forming says so on every rank

Status local_device_support() {
  return fail(Error::unavailable("this build has no NCCL (no CUDA toolkit with NCCL when it was compiled)"));
}

bool is_device_memory(const void*) { return false; }

Result<std::unique_ptr<DeviceGroup::Nccl>> DeviceGroup::join_nccl() { return fail(local_device_support().error()); }
#endif

DeviceGroup::DeviceGroup(Communicator& host, CommOptions options) : host_(host), options_(options) {}
DeviceGroup::~DeviceGroup() = default;

bool DeviceGroup::formed() const { return nccl_ != nullptr; }

Status DeviceGroup::form(const Status& local) {
  if (outcome_) return *outcome_;
  outcome_ = [&]() -> Status {
    auto unable = ranks_raising(host_, !local);
    if (!unable) return fail(unable.error());
    if (any(*unable)) return fail(refusal(*unable, local));
    auto joined = join_nccl();
    auto failed = ranks_raising(host_, !joined);  // a rank whose join failed leaves the others waiting: tell them
    if (!failed) return fail(failed.error());
    if (any(*failed)) {
      return fail(Error::unavailable("the NCCL group did not form: rank(s) " + rank_list(*failed) + " failed" +
                                     (joined ? "" : " (this rank: " + joined.error().message + ")")));
    }
    nccl_ = std::move(*joined);
    return {};
  }();
  return *outcome_;
}

Status DeviceGroup::allreduce([[maybe_unused]] std::span<std::byte> data, [[maybe_unused]] DType type,
                              [[maybe_unused]] ReduceOp op, [[maybe_unused]] std::uintptr_t ready_event) {
#if VOLADOR_HAVE_NCCL
  if (nccl_) return nccl_->comm->allreduce_after(data, type, op, reinterpret_cast<void*>(ready_event));
#endif
  return fail(Error::invalid_argument("GPU collectives are not formed for this trial"));
}

Status DeviceGroup::allreduce_each([[maybe_unused]] std::span<const std::span<std::byte>> buffers,
                                   [[maybe_unused]] DType type, [[maybe_unused]] ReduceOp op) {
#if VOLADOR_HAVE_NCCL
  if (nccl_) return nccl_->comm->allreduce_each(buffers, type, op);
#endif
  return fail(Error::invalid_argument("GPU collectives are not formed for this trial"));
}

}  // namespace volador::collective
