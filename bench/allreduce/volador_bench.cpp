// volador-allreduce-bench: our collective backends (one forked process per
// rank, set up through the factory as a rank would be) in the nccl-tests
// style; --limits measures the machine instead. With --netns, rank r runs
// inside network namespace r (a simulated host) at --addresses' r-th address:
// the TCP backend across hosts. --backend nccl (builds with NCCL): one CUDA
// device per rank, device buffers. See README.md here.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "bench/allreduce/machine_limits.hpp"
#include "bench/allreduce/rank_hosts.hpp"
#include "bench/allreduce/timed_allreduce.hpp"
#include "runtime/collective/factory.hpp"
#ifdef VOLADOR_HAVE_NCCL
#include "bench/allreduce/nccl_ranks.hpp"
#endif

namespace {

using namespace volador;
using namespace volador::bench;

// One rank: join the group, then time every step; rank 0 prints.
int run_rank(collective::GroupSpec spec, collective::TcpListener& listener, const std::vector<Step>& steps,
             RankTimes& times, const std::string& impl, collective::DType type) {
  auto comm = collective::make_communicator(spec, listener);
  if (!comm) {
    std::fprintf(stderr, "rank %d: %s\n", spec.rank, comm.error().message.c_str());
    return 1;
  }
  std::vector<float> buffer(steps.empty() ? 0 : steps.back().bytes / sizeof(float), 0.0f);
  return time_allreduce_steps(**comm, std::as_writable_bytes(std::span(buffer)), steps, type, times, impl);
}

// "volador-tcp", "volador-shm-bf16", "volador-tcp-xns" (ranks across namespaces).
std::string impl_name(const std::string& backend, collective::DType type, const RankHosts& hosts) {
  std::string name = "volador-" + backend;
  if (type != collective::DType::f32) name += "-" + std::string(collective::dtype_name(type));
  return hosts.across_namespaces() ? name + "-xns" : name;
}

// Runs the steps on `ranks` forked ranks placed by `hosts`; 0 when all succeeded.
int run_backend(const std::string& backend, int ranks, const std::vector<Step>& steps, collective::DType type,
                const RankHosts& hosts) {
  collective::GroupSpec spec;
  spec.group_id = "bench-" + std::to_string(::getpid());
  spec.secret = "bench-secret";
  auto listeners = hosts.listen_all(ranks);
  if (!listeners) {
    std::fprintf(stderr, "%s\n", listeners.error().message.c_str());
    return 1;
  }
  for (int r = 0; r < ranks; ++r) {
    // Distinct host ids make the factory choose TCP even on one machine.
    const std::string host = backend == "shm" ? collective::local_host_id() : "host-" + std::to_string(r);
    spec.ranks.push_back({host, (*listeners)[static_cast<std::size_t>(r)].endpoint()});
  }
  const std::string impl = impl_name(backend, type, hosts);
  RankTimes times(ranks);
  print_table_header(impl, ranks);
  const bool ok = run_forked_in(hosts, ranks, [&](int rank) {
    spec.rank = rank;
    return run_rank(spec, (*listeners)[static_cast<std::size_t>(rank)], steps, times, impl, type);
  });
  return ok ? 0 : 1;
}

// The NCCL backend's rows (one CUDA device per rank); refused, with the
// reason, in a build without NCCL.
int run_nccl(int ranks, const std::vector<Step>& steps, collective::DType type, const RankHosts& hosts) {
#ifdef VOLADOR_HAVE_NCCL
  return run_nccl_ranks(ranks, steps, type, impl_name("nccl", type, hosts));
#else
  (void)ranks, (void)steps, (void)type, (void)hosts;
  std::fprintf(stderr, "--backend nccl: this build has no NCCL backend (CMake found no CUDA toolkit with NCCL)\n");
  return 2;
#endif
}

// Where the ranks run: loopback without namespaces, else one namespace each
// for `ranks` ranks; error invalid_argument when they do not fit, or when the
// ranks do not talk TCP (`tcp` false).
Result<RankHosts> placement(std::vector<std::string> namespaces, std::vector<std::string> addresses, int ranks,
                            bool tcp) {
  if (namespaces.empty()) return RankHosts();
  if (!tcp) return fail(Error::invalid_argument("ranks across namespaces need --backend tcp"));
  auto hosts = RankHosts::across(std::move(namespaces), std::move(addresses));
  if (hosts && !hosts->fits(ranks))
    return fail(Error::invalid_argument("one namespace per rank: " + std::to_string(ranks) + " ranks"));
  return hosts;
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
  std::vector<std::string> namespaces, addresses;
  app.add_option("--backend", backend, "shm, tcp or nccl (one CUDA device per rank; builds with NCCL only)")
      ->check(CLI::IsMember({"shm", "tcp", "nccl"}));
  app.add_option("--ranks", ranks, "processes in the group")->check(CLI::Range(1, 64));
  app.add_option("--min-bytes", min_bytes, "smallest size (K/M/G suffixes)");
  app.add_option("--max-bytes", max_bytes, "largest size (K/M/G suffixes)");
  app.add_option("--dtype", dtype, "element type reduced: f32, f16 or bf16 (sizes stay in bytes)")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}));
  app.add_flag("--limits", limits, "measure memcpy and TCP ring bandwidth instead");
  app.add_option("--limit-rings", ring_sizes, "process counts of the TCP rings (--limits)");
  auto* netns = app.add_option("--netns", namespaces,
                               "across hosts: rank r runs in network namespace r of this list (tcp only;"
                               " with --limits only the rings are measured)")
                    ->delimiter(',');
  app.add_option("--addresses", addresses, "rank r's listen address in its namespace (with --netns)")
      ->delimiter(',')
      ->needs(netns);
  netns->needs("--addresses");
  CLI11_PARSE(app, argc, argv);
  const int most = limits && !ring_sizes.empty() ? std::ranges::max(ring_sizes) : ranks;  // placed at once
  auto hosts = placement(namespaces, addresses, most, limits || backend == "tcp");
  if (!hosts) {
    std::fprintf(stderr, "--netns: %s\n", hosts.error().message.c_str());
    return 2;
  }
  if (limits) return hosts->across_namespaces() ? measure_ring_limits(ring_sizes, *hosts) : measure_limits(ring_sizes);
  const auto type = dtype == "f16" ? collective::DType::f16 : dtype == "bf16" ? collective::DType::bf16 : collective::DType::f32;
  const auto steps = plan(parse_size(min_bytes), parse_size(max_bytes));
  if (backend == "nccl") return run_nccl(ranks, steps, type, *hosts);
  return run_backend(backend, ranks, steps, type, *hosts);
}
