#pragma once
// Progress flags between the ranks of a shared-memory group. Each rank
// publishes, per phase, how many chunks it has finished; a waiter spins,
// yields, then naps on a futex (wait_policy.hpp), and checks every few
// milliseconds that no peer has exited (pidfd;
// ranks must share a pid namespace), closed its communicator or aborted the
// group. One per communicator, not thread-safe.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "runtime/collective/shm_segment.hpp"
#include "runtime/collective/socket.hpp"
#include "runtime/collective/wait_policy.hpp"

namespace volador::collective {

class ShmSync {
 public:
  // Watches every peer of `segment` (all attached). The segment must outlive this.
  [[nodiscard]] static Result<ShmSync> open(const ShmSegment& segment, int rank, std::chrono::milliseconds timeout);

  // Sets this rank's counter for `phase` and wakes sleeping peers.
  void publish(Phase phase, std::uint64_t chunks);
  // Waits until rank `peer`'s counter for `phase` reaches `chunks`. Error
  // unavailable when the peer is gone, the group aborted, or after the timeout.
  [[nodiscard]] Status wait(int peer, Phase phase, std::uint64_t chunks);
  // The same for every other rank.
  [[nodiscard]] Status wait_all(Phase phase, std::uint64_t chunks);
  // Tells every peer that this rank gave up (after an error).
  void abort();
  // Tells every peer that this rank's communicator is closed.
  void depart();

 private:
  struct Peer {
    int rank = 0;
    pid_t pid = 0;
    UniqueFd pidfd;  // empty where pidfd_open is unavailable: kill(pid, 0) instead
  };
  ShmSync(const ShmSegment& segment, int rank, std::chrono::milliseconds timeout, std::vector<Peer> peers);

  void wake();
  void nap(int peer, Phase phase, std::uint64_t chunks);
  [[nodiscard]] bool reached(int peer, Phase phase, std::uint64_t chunks) const;
  [[nodiscard]] Status check_aborted() const;
  [[nodiscard]] Status check_peers() const;

  ShmHeader* header_;
  ShmRankLine* lines_;
  int rank_;
  std::chrono::milliseconds timeout_;
  SpinPolicy spin_;
  std::vector<Peer> peers_;
};

}  // namespace volador::collective
