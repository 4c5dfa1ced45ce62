// gloo-allreduce-bench RANKS MIN_BYTES MAX_BYTES: Gloo's chunked ring
// allreduce (float sum) over its TCP transport on loopback, one forked
// process per rank (file-store rendezvous), timed exactly like
// volador-allreduce-bench.

#include <gloo/allreduce_ring_chunked.h>
#include <gloo/barrier_all_to_all.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/allreduce/bench_common.hpp"

namespace {

using namespace volador::bench;
using Clock = std::chrono::steady_clock;

int run_rank(int rank, int ranks, const std::string& store_dir, const std::vector<Step>& steps, RankTimes& times) {
  gloo::transport::tcp::attr attr("127.0.0.1");
  auto device = gloo::transport::tcp::CreateDevice(attr);
  gloo::rendezvous::FileStore store(store_dir);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, ranks);
  context->setTimeout(std::chrono::minutes(5));
  context->connectFullMesh(store, device);
  std::vector<float> buffer(steps.empty() ? 0 : steps.back().bytes / sizeof(float), 0.0f);
  gloo::BarrierAllToAll barrier(context);
  for (const Step& step : steps) {
    gloo::AllreduceRingChunked<float> allreduce(context, {buffer.data()}, static_cast<int>(step.bytes / sizeof(float)));
    for (int i = 0; i < step.warmup; ++i) allreduce.run();
    barrier.run();
    const auto start = Clock::now();
    for (int i = 0; i < step.iters; ++i) allreduce.run();
    times.set(rank, std::chrono::duration<double>(Clock::now() - start).count() / step.iters);
    barrier.run();
    if (rank == 0) report("gloo-tcp", ranks, step, times.slowest());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 2;
  const auto steps = plan(parse_size(argc > 2 ? argv[2] : "8"), parse_size(argc > 3 ? argv[3] : "256M"));
  const auto store_dir = std::filesystem::temp_directory_path() / ("gloo-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(store_dir);
  RankTimes times(ranks);
  print_table_header("gloo-tcp", ranks);
  const bool ok = run_forked(ranks, [&](int rank) { return run_rank(rank, ranks, store_dir, steps, times); });
  std::filesystem::remove_all(store_dir);
  return ok ? 0 : 1;
}
