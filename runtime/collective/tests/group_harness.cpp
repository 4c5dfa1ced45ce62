#include "runtime/collective/tests/group_harness.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

namespace volador::collective::testing {

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

struct Child {
  pid_t pid = -1;
  int pipe_fd = -1;
  bool done = false;
};

[[noreturn]] void run_child(int rank, const RankFn& fn, int pipe_fd) {
  const auto start = Clock::now();
  const Status outcome = fn(rank);
  const std::string text = std::to_string(since(start).count()) + " " + (outcome ? "" : outcome.error().message);
  const std::size_t len = std::min<std::size_t>(text.size(), 4096);
  (void)!::write(pipe_fd, text.data(), len);
  ::_exit(outcome ? 0 : 1);
}

RankReport reap(int rank, Child& child, int status) {
  std::array<char, 4097> buffer{};
  const ssize_t got = ::read(child.pipe_fd, buffer.data(), buffer.size() - 1);
  ::close(child.pipe_fd);
  std::string text(buffer.data(), got > 0 ? static_cast<std::size_t>(got) : 0);
  RankReport report{rank, WIFEXITED(status) && WEXITSTATUS(status) == 0, "", {}};
  if (const auto space = text.find(' '); space != std::string::npos) {
    report.elapsed = std::chrono::milliseconds(std::atoll(text.c_str()));
    report.message = text.substr(space + 1);
  }
  if (WIFSIGNALED(status)) report.message = "killed by signal " + std::to_string(WTERMSIG(status));
  return report;
}

}  // namespace

std::vector<RankReport> run_in_threads(int n, const RankFn& fn) {
  std::vector<RankReport> reports(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      const auto start = Clock::now();
      const Status outcome = fn(r);
      reports[static_cast<std::size_t>(r)] = {r, outcome.has_value(), outcome ? "" : outcome.error().message, since(start)};
    });
  }
  for (auto& t : threads) t.join();
  return reports;
}

std::vector<RankReport> run_in_processes(int n, const RankFn& fn, std::chrono::milliseconds limit) {
  std::vector<Child> children(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      run_child(r, fn, fds[1]);
    }
    ::close(fds[1]);
    children[static_cast<std::size_t>(r)] = {pid, fds[0], false};
  }
  std::vector<RankReport> reports(static_cast<std::size_t>(n));
  const auto start = Clock::now();
  for (int left = n; left > 0;) {
    const bool late = since(start) > limit;
    for (int r = 0; r < n; ++r) {
      Child& child = children[static_cast<std::size_t>(r)];
      if (child.done) continue;
      if (late) ::kill(child.pid, SIGKILL);
      int status = 0;
      if (::waitpid(child.pid, &status, late ? 0 : WNOHANG) != child.pid) continue;
      child.done = true;
      --left;
      reports[static_cast<std::size_t>(r)] = reap(r, child, status);
      if (late) reports[static_cast<std::size_t>(r)].message += " (still running after the test's limit)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return reports;
}

std::string summary(const std::vector<RankReport>& reports) {
  std::string out;
  for (const auto& r : reports) {
    out += "rank " + std::to_string(r.rank) + (r.ok ? " ok" : " FAILED") + " after " +
           std::to_string(r.elapsed.count()) + " ms" + (r.message.empty() ? "" : ": " + r.message) + "\n";
  }
  return out;
}

bool all_ok(const std::vector<RankReport>& reports) {
  return std::ranges::all_of(reports, [](const RankReport& r) { return r.ok; });
}

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* fixed = std::getenv("VOLADOR_TEST_SEED")) return std::uint64_t{std::strtoull(fixed, nullptr, 0)};
    std::random_device entropy;
    return (std::uint64_t{entropy()} << 32) | entropy();
  }();
  return seed;
}

std::string unique_group_id() {
  static std::atomic<int> counter{0};
  return "test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(test_seed() % 100000);
}

}  // namespace volador::collective::testing
