#include "python/native/native_session.hpp"

namespace volador::python {

NativeSession::NativeSession(worker::WorkerLaunch launch, worker::JoinedTrial joined)
    : launch_(std::move(launch)), joined_(std::move(joined)) {}

Result<NativeSession> NativeSession::join() {
  auto launch = worker::read_worker_launch();
  if (!launch) return fail(launch.error());
  auto joined = worker::join_trial(*launch);
  if (!joined) return fail(joined.error());
  return NativeSession(std::move(*launch), std::move(*joined));
}

Status NativeSession::check_open(const char* what) const {
  if (!joined_) return fail(Error::unavailable(std::string(what) + ": the session is closed"));
  return {};
}

Result<std::optional<wire::WorkloadRequest>> NativeSession::next_workload() {
  if (auto open = check_open("next_workload"); !open) return fail(open.error());
  return joined_->session->next_workload();
}

Status NativeSession::complete(const wire::WorkloadResult& result) {
  if (auto open = check_open("complete"); !open) return open;
  joined_->session->complete(result);
  return {};
}

Status NativeSession::allreduce(std::span<float> data, collective::ReduceOp op) {
  if (auto open = check_open("allreduce_"); !open) return open;
  auto* comm = joined_->group->communicator();
  return comm == nullptr ? Status{} : comm->allreduce(data, op);
}

Status NativeSession::broadcast(std::span<std::byte> data, int root) {
  if (auto open = check_open("broadcast_"); !open) return open;
  if (root < 0 || static_cast<std::uint32_t>(root) >= size())
    return fail(Error::invalid_argument("broadcast_ root " + std::to_string(root) + " is not a rank of this " +
                                        std::to_string(size()) + "-rank trial"));
  auto* comm = joined_->group->communicator();
  return comm == nullptr ? Status{} : comm->broadcast(data, root);
}

Status NativeSession::barrier() {
  if (auto open = check_open("barrier"); !open) return open;
  auto* comm = joined_->group->communicator();
  return comm == nullptr ? Status{} : comm->barrier();
}

void NativeSession::close() {
  if (!joined_) return;
  joined_->group.reset();  // the data plane first: peers see it close
  joined_.reset();
}

}  // namespace volador::python
