#include "python/native/native_session.hpp"

namespace volador::python {

Status CollectiveTicket::wait() {
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return done_; });
  return status_;
}

bool CollectiveTicket::done() const {
  std::lock_guard lock(mutex_);
  return done_;
}

void CollectiveTicket::finish(Status status) {
  {
    std::lock_guard lock(mutex_);
    status_ = std::move(status);
    done_ = true;
  }
  finished_.notify_all();
}

std::shared_ptr<CollectiveTicket> CollectiveQueue::submit(std::function<Status()> task) {
  auto ticket = std::make_shared<CollectiveTicket>();
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
      tasks_.emplace_back(std::move(task), ticket);
      wake_.notify_one();
      return ticket;
    }
  }
  ticket->finish(fail(Error::unavailable("the session is closed")));
  return ticket;
}

void CollectiveQueue::shutdown() {
  std::thread thread;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    thread = std::move(thread_);
  }
  wake_.notify_all();
  if (thread.joinable()) thread.join();
}

void CollectiveQueue::run() {
  for (;;) {
    std::pair<std::function<Status()>, std::shared_ptr<CollectiveTicket>> next;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      next = std::move(tasks_.front());
      tasks_.pop_front();
      if (stopping_) {
        lock.unlock();
        next.second->finish(fail(Error::unavailable("the session was closed before the collective ran")));
        continue;
      }
    }
    next.second->finish(next.first());
  }
}

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

std::shared_ptr<CollectiveTicket> NativeSession::submit(const char* what,
                                                        std::function<Status(trial_api::DataParallel&)> task) {
  if (auto open = check_open(what); !open || !queue_) {
    auto ticket = std::make_shared<CollectiveTicket>();
    ticket->finish(open ? Status{fail(Error::unavailable(std::string(what) + ": the session is closed"))} : open);
    return ticket;
  }
  std::shared_ptr<trial_api::DataParallel> group = joined_->group;
  return queue_->submit([group, task = std::move(task)] { return group->size() == 1 ? Status{} : task(*group); });
}

std::shared_ptr<CollectiveTicket> NativeSession::allreduce_async(std::span<float> data, collective::ReduceOp op) {
  return submit("allreduce_",
                [data, op](trial_api::DataParallel& group) { return group.communicator()->allreduce(data, op); });
}

Status NativeSession::allreduce(std::span<float> data, collective::ReduceOp op) {
  return allreduce_async(data, op)->wait();
}

Status NativeSession::broadcast(std::span<std::byte> data, int root) {
  if (auto open = check_open("broadcast_"); !open) return open;
  if (root < 0 || static_cast<std::uint32_t>(root) >= size())
    return fail(Error::invalid_argument("broadcast_ root " + std::to_string(root) + " is not a rank of this " +
                                        std::to_string(size()) + "-rank trial"));
  return submit("broadcast_",
                [data, root](trial_api::DataParallel& group) { return group.communicator()->broadcast(data, root); })
      ->wait();
}

Status NativeSession::barrier() {
  return submit("barrier", [](trial_api::DataParallel& group) { return group.communicator()->barrier(); })->wait();
}

Status NativeSession::use_device_memory(bool wanted) {
  return submit("use_device_memory", [wanted](trial_api::DataParallel& group) {
           return group.device_group()->form(
               wanted ? collective::local_device_support()
                      : Status{fail(Error::unavailable("its gradients are not in one GPU's memory"))});
         })->wait();
}

std::shared_ptr<CollectiveTicket> NativeSession::allreduce_device_async(std::uintptr_t pointer, std::size_t count,
                                                                        collective::ReduceOp op,
                                                                        std::uintptr_t ready_event) {
  std::span<std::byte> data(reinterpret_cast<std::byte*>(pointer), count * sizeof(float));
  return submit("allreduce_device_async_", [data, op, ready_event](trial_api::DataParallel& group) {
    return group.device_group()->allreduce(data, collective::DType::f32, op, ready_event);
  });
}

void NativeSession::close() {
  if (queue_) queue_->shutdown();  // no collective may run on the group once it is gone
  if (!joined_) return;
  joined_->group.reset();  // the data plane first: peers see it close
  joined_.reset();
}

}  // namespace volador::python
