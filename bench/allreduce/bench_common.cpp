#include "bench/allreduce/bench_common.hpp"

#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

namespace volador::bench {

std::vector<Step> plan(std::size_t min_bytes, std::size_t max_bytes) {
  std::vector<Step> steps;
  for (std::size_t bytes = std::max<std::size_t>(min_bytes, sizeof(float)); bytes <= max_bytes; bytes *= 2) {
    if (bytes <= (64 << 10)) steps.push_back({bytes, 50, 500});
    else if (bytes <= (1 << 20)) steps.push_back({bytes, 10, 100});
    else if (bytes <= (16 << 20)) steps.push_back({bytes, 3, 20});
    else if (bytes <= (64 << 20)) steps.push_back({bytes, 1, 5});
    else steps.push_back({bytes, 1, 3});
  }
  return steps;
}

std::size_t parse_size(std::string_view text) {
  std::size_t value = std::strtoull(std::string(text).c_str(), nullptr, 10);
  switch (text.empty() ? '\0' : text.back()) {
    case 'K': case 'k': return value << 10;
    case 'M': case 'm': return value << 20;
    case 'G': case 'g': return value << 30;
    default: return value;
  }
}

double algbw_gbps(std::size_t bytes, double seconds) { return static_cast<double>(bytes) / seconds / 1e9; }

double busbw_gbps(std::size_t bytes, double seconds, int ranks) {
  return algbw_gbps(bytes, seconds) * 2.0 * (ranks - 1) / ranks;
}

void print_table_header(std::string_view impl, int ranks) {
  std::printf("# %.*s, %d ranks\n# %12s %8s %12s %10s %10s\n", static_cast<int>(impl.size()), impl.data(), ranks,
              "size(B)", "iters", "time(us)", "algbw", "busbw");
  std::fflush(stdout);
}

void report(std::string_view impl, int ranks, const Step& step, double seconds) {
  const double us = seconds * 1e6;
  const double alg = algbw_gbps(step.bytes, seconds);
  const double bus = busbw_gbps(step.bytes, seconds, ranks);
  std::printf("  %12zu %8d %12.2f %10.3f %10.3f\n", step.bytes, step.iters, us, alg, bus);
  std::printf("RESULT {\"impl\":\"%.*s\",\"ranks\":%d,\"bytes\":%zu,\"iters\":%d,\"time_us\":%.3f,"
              "\"algbw_gbps\":%.4f,\"busbw_gbps\":%.4f}\n",
              static_cast<int>(impl.size()), impl.data(), ranks, step.bytes, step.iters, us, alg, bus);
  std::fflush(stdout);
}

void report_limit(std::string_view name, double gbps) {
  std::printf("LIMIT {\"name\":\"%.*s\",\"gbps\":%.4f}\n", static_cast<int>(name.size()), name.data(), gbps);
  std::fflush(stdout);
}

RankTimes::RankTimes(int ranks)
    : ranks_(ranks),
      slots_(static_cast<double*>(::mmap(nullptr, sizeof(double) * static_cast<std::size_t>(ranks),
                                         PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0))) {}

RankTimes::~RankTimes() { ::munmap(const_cast<double*>(slots_), sizeof(double) * static_cast<std::size_t>(ranks_)); }

double RankTimes::slowest() const {
  double worst = 0.0;
  for (int r = 0; r < ranks_; ++r) worst = std::max(worst, static_cast<double>(slots_[r]));
  return worst;
}

// The handoff's state word, followed in the mapping by the value's bytes.
struct Handoff::Shared {
  enum State : int { pending, published, abandoned };
  std::atomic<int> state{pending};  // lock-free, hence usable across processes
  [[nodiscard]] std::byte* value() { return reinterpret_cast<std::byte*>(this + 1); }
};

Handoff::Handoff(std::size_t bytes) : bytes_(bytes) {
  void* mapping = ::mmap(nullptr, sizeof(Shared) + bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  shared_ = mapping == MAP_FAILED ? nullptr : new (mapping) Shared;
}

Handoff::~Handoff() {
  if (shared_ != nullptr) ::munmap(shared_, sizeof(Shared) + bytes_);
}

void Handoff::publish(std::span<const std::byte> value) {
  if (shared_ == nullptr) return;
  std::memcpy(shared_->value(), value.data(), std::min(value.size(), bytes_));
  shared_->state.store(Shared::published, std::memory_order_release);
}

void Handoff::abandon() {
  if (shared_ != nullptr) shared_->state.store(Shared::abandoned, std::memory_order_release);
}

bool Handoff::await(std::span<std::byte> out, std::chrono::milliseconds timeout) const {
  if (shared_ == nullptr) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int state = Shared::pending;
  while ((state = shared_->state.load(std::memory_order_acquire)) == Shared::pending &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (state != Shared::published) return false;
  std::memcpy(out.data(), shared_->value(), std::min(out.size(), bytes_));
  return true;
}

namespace {

// Binds this process to the r-th core it may use.
void bind_to_core(int r) {
  cpu_set_t allowed, mine;
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  CPU_ZERO(&mine);
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed) && seen++ == r) CPU_SET(cpu, &mine);
  }
  ::sched_setaffinity(0, sizeof mine, &mine);
}

}  // namespace

bool run_forked(int n, const std::function<int(int rank)>& fn) {
  std::fflush(stdout);
  cpu_set_t allowed;
  const bool bind = ::sched_getaffinity(0, sizeof allowed, &allowed) == 0 && n <= CPU_COUNT(&allowed);
  std::vector<pid_t> children;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (bind) bind_to_core(r);
      const int code = fn(r);
      std::fflush(stdout);
      ::_exit(code);
    }
    children.push_back(pid);
  }
  bool ok = true;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return ok;
}

}  // namespace volador::bench
