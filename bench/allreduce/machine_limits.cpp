#include "bench/allreduce/machine_limits.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>
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
constexpr int kCopies = 5;
constexpr std::size_t kStreamBytes = std::size_t{1} << 30;
constexpr std::size_t kIoBytes = std::size_t{1} << 20;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// GB/s of memcpy between two buffers far larger than the caches.
double memcpy_gbps() {
  std::vector<char> from(kCopyBytes, 1), to(kCopyBytes, 2);
  std::memcpy(to.data(), from.data(), kCopyBytes);
  const auto start = Clock::now();
  for (int i = 0; i < kCopies; ++i) std::memcpy(to.data(), from.data(), kCopyBytes);
  return static_cast<double>(kCopyBytes) * kCopies / seconds_since(start) / 1e9;
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

// Per-rank GB/s of a loopback TCP ring of n processes (same socket options as the TCP backend).
double loopback_ring_gbps(int n, std::size_t buffer_bytes) {
  std::vector<collective::TcpListener> listeners;
  for (int r = 0; r < n; ++r) {
    auto listener = collective::TcpListener::open("127.0.0.1");
    if (!listener) return 0.0;
    listeners.push_back(std::move(*listener));
  }
  RankTimes times(n);
  const bool ok = run_forked(n, [&](int rank) {
    Deadline deadline(std::chrono::seconds(10));
    auto out = collective::connect_to(listeners[static_cast<std::size_t>((rank + 1) % n)].endpoint(), deadline);
    auto in = listeners[static_cast<std::size_t>(rank)].accept(deadline);
    if (!out || !in) return 1;
    make_blocking(out->get());
    make_blocking(in->get());
    times.set(rank, exchange(out->get(), in->get(), buffer_bytes));
    return 0;
  });
  return ok ? static_cast<double>(kStreamBytes) / times.slowest() / 1e9 : 0.0;
}

}  // namespace

int measure_limits(const std::vector<int>& ring_sizes) {
  report_limit("memcpy_1proc", memcpy_gbps());
  RankTimes copy_rates(2);
  bool ok = run_forked(2, [&](int rank) {
    copy_rates.set(rank, 1.0 / memcpy_gbps());
    return 0;
  });
  if (ok) report_limit("memcpy_each_of_2procs", 1.0 / copy_rates.slowest());
  for (int n : ring_sizes) {
    const std::string name = "tcp_loopback_ring_" + std::to_string(n) + "procs";
    const double cached = loopback_ring_gbps(n, kIoBytes);
    const double streamed = loopback_ring_gbps(n, kCopyBytes);
    report_limit(name + "_cached", cached);
    report_limit(name + "_streamed", streamed);
    ok = ok && cached > 0.0 && streamed > 0.0;
  }
  return ok ? 0 : 1;
}

}  // namespace volador::bench
