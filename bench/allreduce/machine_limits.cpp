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

// Sends and receives kStreamBytes at once on blocking `fd`, in kIoBytes
// calls walking through buffers of `buffer_bytes` (kIoBytes: reused, in
// cache; larger: streamed from memory like a big allreduce). Returns seconds.
double exchange(int fd, std::size_t buffer_bytes) {
  std::vector<char> out(buffer_bytes, 3), in(buffer_bytes, 4);
  const auto start = Clock::now();
  std::thread sender([&] {
    for (std::size_t sent = 0; sent < kStreamBytes;) {
      const std::size_t at = sent % buffer_bytes;
      const ssize_t n = ::send(fd, out.data() + at, std::min(kIoBytes, buffer_bytes - at), MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  });
  for (std::size_t got = 0; got < kStreamBytes;) {
    const std::size_t at = got % buffer_bytes;
    const ssize_t n = ::recv(fd, in.data() + at, std::min(kIoBytes, buffer_bytes - at), 0);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  sender.join();
  return seconds_since(start);
}

// Per-direction GB/s of loopback TCP with both directions busy (same socket options as the TCP backend).
double loopback_bidir_gbps(std::size_t buffer_bytes) {
  auto listener = collective::TcpListener::open("127.0.0.1");
  if (!listener) return 0.0;
  RankTimes times(2);
  const bool ok = run_forked(2, [&](int rank) {
    Deadline deadline(std::chrono::seconds(10));
    auto fd = rank == 0 ? listener->accept(deadline) : collective::connect_to(listener->endpoint(), deadline);
    if (!fd) return 1;
    int blocking = 0;
    ::ioctl(fd->get(), FIONBIO, &blocking);
    times.set(rank, exchange(fd->get(), buffer_bytes));
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
  const double cached = loopback_bidir_gbps(kIoBytes);
  report_limit("tcp_loopback_bidir_per_direction", cached);
  const double streamed = loopback_bidir_gbps(kCopyBytes);
  report_limit("tcp_loopback_bidir_per_direction_256MiB_buffers", streamed);
  return copies && cached > 0.0 && streamed > 0.0 ? 0 : 1;
}

}  // namespace volador::bench
