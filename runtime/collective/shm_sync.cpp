#include "runtime/collective/shm_sync.hpp"

#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <ctime>
#include <string>

namespace volador::collective {

namespace {

constexpr std::chrono::milliseconds kLivenessPeriod{20};
constexpr int kPollsPerStep = 16;  // flag checks between clock reads
constexpr timespec kNap{0, 1'000'000};  // futex naps of 1 ms re-check liveness

constexpr const char* kPhaseNames[] = {"posting", "reducing", "draining"};

template <class T>
std::atomic_ref<T> atomic(T& value) {
  return std::atomic_ref<T>(value);
}

long futex(std::uint32_t* word, int op, std::uint32_t value, const timespec* timeout) {
  return ::syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

std::string rank_text(int rank) { return "rank " + std::to_string(rank); }

}  // namespace

Result<ShmSync> ShmSync::open(const ShmSegment& segment, int rank, std::chrono::milliseconds timeout) {
  std::vector<Peer> peers;
  for (int r = 0; r < segment.geometry().ranks; ++r) {
    if (r == rank) continue;
    const pid_t pid = atomic(segment.line(r).pid).load();
    UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (!pidfd && errno == ESRCH) return fail(Error::unavailable(rank_text(r) + " (pid " + std::to_string(pid) + ") exited"));
    peers.push_back({r, pid, std::move(pidfd)});
  }
  return ShmSync(segment, rank, timeout, std::move(peers));
}

ShmSync::ShmSync(const ShmSegment& segment, int rank, std::chrono::milliseconds timeout, std::vector<Peer> peers)
    : header_(&segment.header()),
      lines_(&segment.line(0)),
      rank_(rank),
      timeout_(timeout),
      spin_(segment.geometry().ranks),
      peers_(std::move(peers)) {}

void ShmSync::publish(Phase phase, std::uint64_t chunks) {
  atomic(lines_[rank_].done[static_cast<int>(phase)]).store(chunks, std::memory_order_release);
  wake();
}

bool ShmSync::reached(int peer, Phase phase, std::uint64_t chunks) const {
  return atomic(lines_[peer].done[static_cast<int>(phase)]).load(std::memory_order_acquire) >= chunks;
}

Status ShmSync::wait(int peer, Phase phase, std::uint64_t chunks) {
  if (reached(peer, phase, chunks)) return {};
  Backoff backoff(spin_);
  Deadline deadline(timeout_);
  auto next_check = Clock::now() + kLivenessPeriod;
  for (;;) {
    for (int i = 0; i < kPollsPerStep; ++i) {
      if (reached(peer, phase, chunks)) {
        backoff.done();
        return {};
      }
      cpu_relax();
    }
    const Backoff::Step step = backoff.next();
    if (step == Backoff::Step::spin) continue;
    if (auto ok = check_aborted(); !ok) return ok;
    if (const auto now = Clock::now(); now >= next_check) {
      if (auto ok = check_peers(); !ok) return ok;
      if (deadline.expired()) {
        return fail(Error::unavailable(rank_text(peer) + " made no progress for " + std::to_string(timeout_.count()) +
                                       " ms (" + kPhaseNames[static_cast<int>(phase)] + " chunk " +
                                       std::to_string(chunks - 1) + ")"));
      }
      next_check = now + kLivenessPeriod;
    }
    if (step == Backoff::Step::yield) {
      ::sched_yield();
    } else {
      nap(peer, phase, chunks);
    }
  }
}

Status ShmSync::wait_all(Phase phase, std::uint64_t chunks) {
  for (const Peer& p : peers_) {
    if (auto ok = wait(p.rank, phase, chunks); !ok) return ok;
  }
  return {};
}

// Sleeps on the wake word unless the awaited counter moved in between;
// publishers see `sleepers` and wake us (Dekker: both sides fence).
void ShmSync::nap(int peer, Phase phase, std::uint64_t chunks) {
  atomic(header_->sleepers).fetch_add(1, std::memory_order_seq_cst);
  const std::uint32_t epoch = atomic(header_->wake_epoch).load(std::memory_order_seq_cst);
  if (!reached(peer, phase, chunks) && atomic(header_->aborted).load() == 0) {
    futex(&header_->wake_epoch, FUTEX_WAIT, epoch, &kNap);
  }
  atomic(header_->sleepers).fetch_sub(1, std::memory_order_seq_cst);
}

void ShmSync::wake() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (atomic(header_->sleepers).load(std::memory_order_relaxed) == 0) return;
  atomic(header_->wake_epoch).fetch_add(1, std::memory_order_seq_cst);
  futex(&header_->wake_epoch, FUTEX_WAKE, INT_MAX, nullptr);
}

void ShmSync::abort() {
  std::uint32_t none = 0;
  atomic(header_->aborted).compare_exchange_strong(none, static_cast<std::uint32_t>(rank_) + 1);
  wake();
}

void ShmSync::depart() {
  atomic(lines_[rank_].departed).store(1);
  wake();
}

Status ShmSync::check_aborted() const {
  const std::uint32_t aborted = atomic(header_->aborted).load();
  if (aborted == 0) return {};
  return fail(Error::unavailable(rank_text(static_cast<int>(aborted) - 1) + " gave up after an error (see its log)"));
}

Status ShmSync::check_peers() const {
  for (const Peer& p : peers_) {
    if (atomic(lines_[p.rank].departed).load() != 0) {
      return fail(Error::unavailable(rank_text(p.rank) + " closed its communicator"));
    }
    pollfd watch{p.pidfd.get(), POLLIN, 0};
    const bool exited = p.pidfd ? ::poll(&watch, 1, 0) > 0 : (::kill(p.pid, 0) != 0 && errno == ESRCH);
    if (exited) return fail(Error::unavailable(rank_text(p.rank) + " (pid " + std::to_string(p.pid) + ") exited"));
  }
  return {};
}

}  // namespace volador::collective
