// volador-allreduce-bench: our collective backends (one forked process per
// rank, set up through the factory as a rank would be) in the nccl-tests
// style; --limits measures the machine instead. See README.md here.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "bench/allreduce/machine_limits.hpp"
#include "runtime/collective/factory.hpp"

namespace {

using namespace volador;
using namespace volador::bench;
using Clock = std::chrono::steady_clock;

// One rank: join the group, then time every step; rank 0 prints.
int run_rank(collective::GroupSpec spec, collective::TcpListener& listener, const std::vector<Step>& steps,
             RankTimes& times, const std::string& impl, collective::DType type) {
  auto comm = collective::make_communicator(spec, listener);
  if (!comm) {
    std::fprintf(stderr, "rank %d: %s\n", spec.rank, comm.error().message.c_str());
    return 1;
  }
  collective::Communicator& c = **comm;
  std::vector<float> buffer(steps.empty() ? 0 : steps.back().bytes / sizeof(float), 0.0f);
  for (const Step& step : steps) {
    auto data = std::as_writable_bytes(std::span(buffer)).first(step.bytes);
    for (int i = 0; i < step.warmup; ++i) (void)c.allreduce(data, type, collective::ReduceOp::sum);
    if (!c.barrier()) return 1;
    const auto start = Clock::now();
    for (int i = 0; i < step.iters; ++i) {
      if (auto ok = c.allreduce(data, type, collective::ReduceOp::sum); !ok) {
        std::fprintf(stderr, "rank %d: %s\n", spec.rank, ok.error().message.c_str());
        return 1;
      }
    }
    times.set(spec.rank, std::chrono::duration<double>(Clock::now() - start).count() / step.iters);
    if (!c.barrier()) return 1;
    if (spec.rank == 0) report(impl, c.size(), step, times.slowest());
  }
  return 0;
}

int run_backend(const std::string& backend, int ranks, const std::vector<Step>& steps, collective::DType type) {
  collective::GroupSpec spec;
  spec.group_id = "bench-" + std::to_string(::getpid());
  spec.secret = "bench-secret";
  std::vector<collective::TcpListener> listeners;
  for (int r = 0; r < ranks; ++r) {
    listeners.push_back(collective::TcpListener::open("127.0.0.1").value());
    // Distinct host ids make the factory choose TCP even on one machine.
    const std::string host = backend == "shm" ? collective::local_host_id() : "host-" + std::to_string(r);
    spec.ranks.push_back({host, listeners.back().endpoint()});
  }
  const std::string impl =
      "volador-" + backend + (type == collective::DType::f32 ? "" : "-" + std::string(collective::dtype_name(type)));
  RankTimes times(ranks);
  print_table_header(impl, ranks);
  const bool ok = run_forked(ranks, [&](int rank) {
    spec.rank = rank;
    return run_rank(spec, listeners[static_cast<std::size_t>(rank)], steps, times, impl, type);
  });
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Allreduce benchmark of Volador's collective backends (nccl-tests style)"};
  std::string backend = "shm";
  int ranks = 2;
  std::string min_bytes = "8", max_bytes = "256M";
  bool limits = false;
  std::string dtype = "f32";
  std::vector<int> ring_sizes{2, 4};
  app.add_option("--backend", backend, "shm or tcp")->check(CLI::IsMember({"shm", "tcp"}));
  app.add_option("--ranks", ranks, "processes in the group")->check(CLI::Range(1, 64));
  app.add_option("--min-bytes", min_bytes, "smallest size (K/M/G suffixes)");
  app.add_option("--max-bytes", max_bytes, "largest size (K/M/G suffixes)");
  app.add_option("--dtype", dtype, "element type reduced: f32, f16 or bf16 (sizes stay in bytes)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  app.add_flag("--limits", limits, "measure memcpy and loopback TCP bandwidth instead");
  app.add_option("--limit-rings", ring_sizes, "process counts of the loopback TCP rings (--limits)");
  CLI11_PARSE(app, argc, argv);
  if (limits) return measure_limits(ring_sizes);
  const auto type = dtype == "f16" ? collective::DType::f16 : dtype == "bf16" ? collective::DType::bf16 : collective::DType::f32;
  return run_backend(backend, ranks, plan(parse_size(min_bytes), parse_size(max_bytes)), type);
}
