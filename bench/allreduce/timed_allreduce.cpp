#include "bench/allreduce/timed_allreduce.hpp"

#include <chrono>
#include <cstdio>

namespace volador::bench {

namespace {

// True when `status` is a success, else says why on stderr.
bool succeeded(const Status& status, int rank) {
  if (!status) std::fprintf(stderr, "rank %d: %s\n", rank, status.error().message.c_str());
  return status.has_value();
}

}  // namespace

int time_allreduce_steps(collective::Communicator& comm, std::span<std::byte> buffer, const std::vector<Step>& steps,
                         collective::DType type, RankTimes& times, const std::string& impl) {
  using Clock = std::chrono::steady_clock;
  for (const Step& step : steps) {
    auto data = buffer.first(step.bytes);
    for (int i = 0; i < step.warmup; ++i) (void)comm.allreduce(data, type, collective::ReduceOp::sum);
    if (!succeeded(comm.barrier(), comm.rank())) return 1;
    const auto start = Clock::now();
    for (int i = 0; i < step.iters; ++i) {
      if (!succeeded(comm.allreduce(data, type, collective::ReduceOp::sum), comm.rank())) return 1;
    }
    times.set(comm.rank(), std::chrono::duration<double>(Clock::now() - start).count() / step.iters);
    if (!succeeded(comm.barrier(), comm.rank())) return 1;
    if (comm.rank() == 0) report(impl, comm.size(), step, times.slowest());
  }
  return 0;
}

}  // namespace volador::bench
