#include "bench/allreduce/machine_limits.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "bench/allreduce/bench_common.hpp"
#include "runtime/collective/tcp_listener.hpp"

namespace volador::bench {

namespace {

using Clock = std::chrono::steady_clock;
using collective::Deadline;

constexpr std::size_t kCopyBytes = std::size_t{256} << 20;
constexpr std::size_t kL3CopyBytes = std::size_t{16} << 20;
constexpr std::size_t kCopiedBytes = std::size_t{1} << 30;  // per measurement
constexpr std::size_t kStreamBytes = std::size_t{1} << 30;
constexpr std::size_t kIoBytes = std::size_t{1} << 20;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// GB/s of memcpy between two buffers of `bytes` (1 GiB copied in all).
double memcpy_gbps(std::size_t bytes) {
  std::vector<char> from(bytes, 1), to(bytes, 2);
  std::memcpy(to.data(), from.data(), bytes);
  const std::size_t copies = kCopiedBytes / bytes;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < copies; ++i) std::memcpy(to.data(), from.data(), bytes);
  return static_cast<double>(bytes * copies) / seconds_since(start) / 1e9;
}

// The slowest of two processes copying at once (they share the memory system).
double memcpy_each_of_2_gbps(std::size_t bytes) {
  RankTimes seconds_per_gb(2);
  const bool ok = run_forked(2, [&](int rank) {
    seconds_per_gb.set(rank, 1.0 / memcpy_gbps(bytes));
    return 0;
  });
  return ok ? 1.0 / seconds_per_gb.slowest() : 0.0;
}

// Sends kStreamBytes on `out` while receiving as much on `in` (blocking
// sockets, a thread each), in kIoBytes calls walking through buffers of
// `buffer_bytes`. Returns the seconds it took.
double exchange(int out, int in, std::size_t buffer_bytes) {
  std::vector<char> outgoing(buffer_bytes, 3), incoming(buffer_bytes, 4);
  const auto start = Clock::now();
  std::thread sender([&] {
    for (std::size_t sent = 0; sent < kStreamBytes;) {
      const std::size_t at = sent % buffer_bytes;
      const ssize_t n = ::send(out, outgoing.data() + at, std::min(kIoBytes, buffer_bytes - at), MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  });
  for (std::size_t got = 0; got < kStreamBytes;) {
    const std::size_t at = got % buffer_bytes;
    const ssize_t n = ::recv(in, incoming.data() + at, std::min(kIoBytes, buffer_bytes - at), 0);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  sender.join();
  return seconds_since(start);
}

void make_blocking(int fd) {
  int off = 0;
  ::ioctl(fd, FIONBIO, &off);
}

// Per-rank GB/s of a TCP ring of n processes placed by `hosts` (loopback, or
// one namespace each), with the TCP backend's socket options; 0 on a failure.
double ring_gbps(int n, std::size_t buffer_bytes, const RankHosts& hosts) {
  auto listeners = hosts.listen_all(n);
  if (!listeners) {
    std::fprintf(stderr, "ring of %d: %s\n", n, listeners.error().message.c_str());
    return 0.0;
  }
  RankTimes times(n);
  const bool ok = run_forked_in(hosts, n, [&](int rank) {
    Deadline deadline(std::chrono::seconds(10));
    auto out = collective::connect_to((*listeners)[static_cast<std::size_t>((rank + 1) % n)].endpoint(), deadline);
    auto in = (*listeners)[static_cast<std::size_t>(rank)].accept(deadline);
    if (!out || !in) return 1;
    make_blocking(out->get());
    make_blocking(in->get());
    times.set(rank, exchange(out->get(), in->get(), buffer_bytes));
    return 0;
  });
  return ok ? static_cast<double>(kStreamBytes) / times.slowest() / 1e9 : 0.0;
}

// LIMIT <prefix><n>procs_{cached,streamed} for each ring size; true when all ran.
bool measure_rings(const std::vector<int>& ring_sizes, const RankHosts& hosts, const std::string& prefix) {
  bool ok = true;
  for (int n : ring_sizes) {
    const std::string name = prefix + std::to_string(n) + "procs";
    const double cached = ring_gbps(n, kIoBytes, hosts);
    const double streamed = ring_gbps(n, kCopyBytes, hosts);
    report_limit(name + "_cached", cached);
    report_limit(name + "_streamed", streamed);
    ok = ok && cached > 0.0 && streamed > 0.0;
  }
  return ok;
}

}  // namespace

int measure_limits(const std::vector<int>& ring_sizes) {
  report_limit("memcpy_1proc", memcpy_gbps(kCopyBytes));
  const double dram = memcpy_each_of_2_gbps(kCopyBytes);
  const double l3 = memcpy_each_of_2_gbps(kL3CopyBytes);
  report_limit("memcpy_each_of_2procs", dram);
  report_limit("memcpy_16MiB_each_of_2procs", l3);
  const bool ok = measure_rings(ring_sizes, RankHosts(), "tcp_loopback_ring_");
  return ok && dram > 0.0 && l3 > 0.0 ? 0 : 1;
}

int measure_ring_limits(const std::vector<int>& ring_sizes, const RankHosts& hosts) {
  return measure_rings(ring_sizes, hosts, "tcp_xns_ring_") ? 0 : 1;
}

}  // namespace volador::bench
