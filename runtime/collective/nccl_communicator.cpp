#include "runtime/collective/nccl_communicator.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "runtime/collective/deadline.hpp"
#include "runtime/collective/failure_latch.hpp"

namespace volador::collective {

namespace detail {
struct NcclState {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  float* token = nullptr;  // device scratch for barrier()
  int device = 0;
  int rank = 0;
  int size = 0;
  std::chrono::milliseconds timeout{};
  FailureLatch latch;
  std::span<const std::byte> last_device_buffer;  // the last buffer found to be device memory (asked once per buffer)

  ~NcclState() {
    if (comm != nullptr) ncclCommAbort(comm);
    if (token != nullptr) cudaFree(token);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};
}  // namespace detail

namespace {

using detail::NcclState;

constexpr std::chrono::microseconds kPollStep{50};
// A collective is first awaited by spinning (most complete within this), then by sleeping kPollStep.
constexpr std::chrono::milliseconds kSpinFor{2};

Error nccl_error(const std::string& what, ncclResult_t r, ncclComm_t comm) {
  std::string text = what + ": " + ncclGetErrorString(r);
  if (comm != nullptr) {
    if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0') text += std::string(" (") + last + ")";
  }
  return r == ncclInvalidArgument || r == ncclInvalidUsage ? Error::invalid_argument(text) : Error::unavailable(text);
}

Status cuda_check(const std::string& what, cudaError_t e) {
  if (e == cudaSuccess) return {};
  return fail(Error::unavailable(what + ": " + cudaGetErrorString(e)));
}

// What a call does, for its error messages: built only when one is needed.
struct CallName {
  const char* operation;
  std::size_t bytes = 0;  // 0: no size to say
  [[nodiscard]] std::string text() const {
    return bytes == 0 ? operation : std::string(operation) + " of " + std::to_string(bytes) + " bytes";
  }
};

std::string timed_out(const std::string& what, const Deadline& deadline) {
  return what + ": nothing completed within " + std::to_string(deadline.budget().count()) + " ms (a peer died or hangs?)";
}

// Waits until a nonblocking NCCL call has left ncclInProgress.
Status settle(ncclComm_t comm, Deadline& deadline, const CallName& name) {
  for (;;) {
    ncclResult_t state = ncclSuccess;
    if (auto r = ncclCommGetAsyncError(comm, &state); r != ncclSuccess) return fail(nccl_error(name.text(), r, comm));
    if (state == ncclSuccess) return {};
    if (state != ncclInProgress) return fail(nccl_error(name.text(), state, comm));
    if (deadline.expired()) return fail(Error::unavailable(timed_out(name.text(), deadline)));
    std::this_thread::sleep_for(kPollStep);
  }
}

// Waits for the stream to drain while watching the communicator for asynchronous errors.
Status await_stream(NcclState& s, Deadline& deadline, const CallName& name) {
  const auto spin_until = Clock::now() + kSpinFor;
  for (;;) {
    const cudaError_t q = cudaStreamQuery(s.stream);
    if (q == cudaSuccess) return {};
    if (q != cudaErrorNotReady) return cuda_check(name.text(), q);
    ncclResult_t state = ncclSuccess;
    ncclCommGetAsyncError(s.comm, &state);
    if (state != ncclSuccess && state != ncclInProgress) return fail(nccl_error(name.text(), state, s.comm));
    if (deadline.expired()) return fail(Error::unavailable(timed_out(name.text(), deadline)));
    if (Clock::now() < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kPollStep);
    }
  }
}

ncclDataType_t nccl_type(DType type) {
  return type == DType::f32 ? ncclFloat32 : type == DType::f16 ? ncclFloat16 : ncclBfloat16;
}

// Error invalid_argument unless `data` is device memory; a loop over the same buffer asks CUDA once.
Status require_device_memory(NcclState& s, std::span<const std::byte> data) {
  if (data.empty()) return {};
  if (data.data() == s.last_device_buffer.data() && data.size() == s.last_device_buffer.size()) return {};
  cudaPointerAttributes attributes{};
  const bool device = cudaPointerGetAttributes(&attributes, data.data()) == cudaSuccess &&
                      (attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged);
  if (device) {
    s.last_device_buffer = data;
    return {};
  }
  cudaGetLastError();  // clear the error a host pointer may leave
  return fail(Error::invalid_argument("nccl collectives need device memory"));
}

// Launches one collective on the stream and waits for it; on error the communicator is aborted.
Status run(NcclState& s, const CallName& name, const std::function<ncclResult_t()>& launch) {
  if (auto ok = s.latch.check(); !ok) return ok;
  Deadline deadline(s.timeout);
  Status outcome;
  if (const cudaError_t e = cudaSetDevice(s.device); e != cudaSuccess) outcome = cuda_check(name.text(), e);
  if (outcome) {
    const ncclResult_t r = launch();
    if (r != ncclSuccess && r != ncclInProgress) outcome = fail(nccl_error(name.text(), r, s.comm));
  }
  if (outcome) outcome = settle(s.comm, deadline, name);
  if (outcome) outcome = await_stream(s, deadline, name);
  if (outcome) return outcome;
  ncclCommAbort(s.comm);
  s.comm = nullptr;
  const Error& e = outcome.error();
  return s.latch.record(fail({e.code, "nccl " + e.message + " on rank " + std::to_string(s.rank)}));
}

}  // namespace

Result<NcclId> make_nccl_id() {
  ncclUniqueId uid;
  if (auto r = ncclGetUniqueId(&uid); r != ncclSuccess) return fail(nccl_error("ncclGetUniqueId", r, nullptr));
  NcclId id{};
  std::memcpy(id.data(), uid.internal, id.size());
  return id;
}

Result<std::unique_ptr<NcclCommunicator>> NcclCommunicator::join(const NcclId& id, int rank, int size, int device,
                                                                 CommOptions options) {
  auto s = std::make_unique<NcclState>();
  s->device = device;
  s->rank = rank;
  s->size = size;
  s->timeout = options.timeout;
  if (auto ok = cuda_check("cudaSetDevice", cudaSetDevice(device)); !ok) return fail(ok.error());
  if (auto ok = cuda_check("cudaStreamCreate", cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)); !ok) {
    return fail(ok.error());
  }
  if (auto ok = cuda_check("cudaMalloc", cudaMalloc(reinterpret_cast<void**>(&s->token), sizeof(float))); !ok) {
    return fail(ok.error());
  }
  ncclUniqueId uid;
  std::memcpy(uid.internal, id.data(), id.size());
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  if (auto r = ncclCommInitRankConfig(&s->comm, size, uid, rank, &config); r != ncclSuccess && r != ncclInProgress) {
    return fail(nccl_error("ncclCommInitRankConfig", r, s->comm));
  }
  Deadline deadline(options.timeout);
  if (auto ok = settle(s->comm, deadline, CallName{"forming the nccl group"}); !ok) return fail(ok.error());
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(std::move(s)));
}

NcclCommunicator::NcclCommunicator(std::unique_ptr<NcclState> state) : state_(std::move(state)) {}

NcclCommunicator::~NcclCommunicator() {
  NcclState& s = *state_;
  if (s.comm == nullptr) return;
  Deadline deadline(s.timeout);
  cudaSetDevice(s.device);
  const ncclResult_t r = ncclCommFinalize(s.comm);
  if ((r == ncclSuccess || r == ncclInProgress) && settle(s.comm, deadline, CallName{"finalize"}) &&
      ncclCommDestroy(s.comm) == ncclSuccess) {
    s.comm = nullptr;
  }
  // A communicator that did not finalize in time is aborted by ~NcclState.
}

Status NcclCommunicator::allreduce(std::span<std::byte> data, DType type, ReduceOp op) {
  return allreduce_after(data, type, op, nullptr);
}

Status NcclCommunicator::allreduce_after(std::span<std::byte> data, DType type, ReduceOp op, void* ready_event) {
  if (auto ok = check_elements(data, type); !ok) return ok;
  if (auto ok = require_device_memory(*state_, data); !ok) return ok;
  NcclState& s = *state_;
  if (ready_event != nullptr) {
    if (auto ok = cuda_check("waiting for the gradients' event",
                             cudaStreamWaitEvent(s.stream, static_cast<cudaEvent_t>(ready_event), 0));
        !ok) {
      return ok;
    }
  }
  return run(s, CallName{"allreduce", data.size_bytes()}, [&] {
    return ncclAllReduce(data.data(), data.data(), data.size() / element_bytes(type), nccl_type(type),
                         op == ReduceOp::sum ? ncclSum : ncclAvg, s.comm, s.stream);
  });
}

Status NcclCommunicator::allreduce_each(std::span<const std::span<std::byte>> buffers, DType type, ReduceOp op) {
  std::size_t bytes = 0;
  for (const auto& data : buffers) {
    if (auto ok = check_elements(data, type); !ok) return ok;
    if (auto ok = require_device_memory(*state_, data); !ok) return ok;
    bytes += data.size_bytes();
  }
  NcclState& s = *state_;
  return run(s, CallName{"grouped allreduce", bytes}, [&] {
    if (auto r = ncclGroupStart(); r != ncclSuccess) return r;
    for (const auto& data : buffers) {
      const ncclResult_t r = ncclAllReduce(data.data(), data.data(), data.size() / element_bytes(type), nccl_type(type),
                                           op == ReduceOp::sum ? ncclSum : ncclAvg, s.comm, s.stream);
      if (r != ncclSuccess && r != ncclInProgress) {
        ncclGroupEnd();
        return r;
      }
    }
    return ncclGroupEnd();
  });
}

Status NcclCommunicator::broadcast(std::span<std::byte> data, int root) {
  if (root < 0 || root >= size()) {
    return fail(Error::invalid_argument("broadcast root " + std::to_string(root) + " outside the group"));
  }
  if (auto ok = require_device_memory(*state_, data); !ok) return ok;
  NcclState& s = *state_;
  return run(s, CallName{"broadcast", data.size()}, [&] {
    return ncclBroadcast(data.data(), data.data(), data.size(), ncclUint8, root, s.comm, s.stream);
  });
}

Status NcclCommunicator::barrier() {
  NcclState& s = *state_;
  return run(s, CallName{"barrier"}, [&] { return ncclAllReduce(s.token, s.token, 1, ncclFloat32, ncclSum, s.comm, s.stream); });
}

int NcclCommunicator::rank() const { return state_->rank; }
int NcclCommunicator::size() const { return state_->size; }

}  // namespace volador::collective
