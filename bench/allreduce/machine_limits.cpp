#include "bench/allreduce/machine_limits.hpp"

#include <sys/ioctl.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "runtime/collective/tcp_listener.hpp"

namespace volador::bench {

namespace {

using Clock = std::chrono::steady_clock;
using collective::Deadline;

constexpr std::size_t kCopyBytes = std::size_t{256} << 20;
constexpr int kCopies = 5;
constexpr std::size_t kStreamBytes = std::size_t{2} << 30;
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

// Sends and receives kStreamBytes at once on `fd`; returns the seconds it took.
double exchange(int fd) {
  std::thread sender([fd] {
    std::vector<char> out(kIoBytes, 3);
    for (std::size_t sent = 0; sent < kStreamBytes;) {
      const ssize_t n = ::send(fd, out.data(), std::min(kIoBytes, kStreamBytes - sent), MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<std::size_t>(n); else if (n < 0 && errno != EAGAIN) return; else std::this_thread::yield();
    }
  });
  std::vector<char> in(kIoBytes);
  const auto start = Clock::now();
  for (std::size_t got = 0; got < kStreamBytes;) {
    const ssize_t n = ::recv(fd, in.data(), kIoBytes, 0);
    if (n > 0) got += static_cast<std::size_t>(n); else if (n == 0 || errno != EAGAIN) break;
  }
  sender.join();
  return seconds_since(start);
}

// Per-direction GB/s of loopback TCP with both directions busy (same socket options as the TCP backend).
double loopback_bidir_gbps() {
  auto listener = collective::TcpListener::open("127.0.0.1");
  if (!listener) return 0.0;
  RankTimes times(2);
  const bool ok = run_forked(2, [&](int rank) {
    Deadline deadline(std::chrono::seconds(10));
    auto fd = rank == 0 ? listener->accept(deadline) : collective::connect_to(listener->endpoint(), deadline);
    if (!fd) return 1;
    int blocking = 0;
    ::ioctl(fd->get(), FIONBIO, &blocking);
    times.set(rank, exchange(fd->get()));
    return 0;
  });
  return ok ? static_cast<double>(kStreamBytes) / times.slowest() / 1e9 : 0.0;
}

}  // namespace

int measure_limits() {
  report_limit("memcpy_1proc", memcpy_gbps());
  RankTimes copy_rates(2);
  const bool copies = run_forked(2, [&](int rank) {
    copy_rates.set(rank, 1.0 / memcpy_gbps());
    return 0;
  });
  if (copies) report_limit("memcpy_each_of_2procs", 1.0 / copy_rates.slowest());
  const double loopback = loopback_bidir_gbps();
  report_limit("tcp_loopback_bidir_per_direction", loopback);
  return copies && loopback > 0.0 ? 0 : 1;
}

}  // namespace volador::bench
