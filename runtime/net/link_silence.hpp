#pragma once
// Node links silent for longer than the connection timeout are cut, as CAF's
// own check would, but each link's silence counted from when it began. CAF
// 0.17's check (basp_broker's heartbeat tick) counts a link this process
// dialled as silent since time zero until its peer's first message, so the
// first tick after a dial (within one heartbeat interval) cut every link whose
// peer had not answered yet: on a loaded host, clients, agents and workers
// failed to connect with connection_timeout to masters that were answering.
// configure_actor_system turns CAF's check off and gives the limit to this.
// The bookkeeping only; openssl_interposers.cpp feeds it from the TLS calls
// CAF makes, and its watchdog thread cuts the silent links (shutdown(2): CAF
// then sees the connection fail and closes it itself). Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <mutex>

namespace volador::net {

class LinkSilence {
 public:
  using Clock = std::chrono::steady_clock;

  // A zero limit cuts nothing.
  explicit LinkSilence(std::chrono::milliseconds limit) : limit_(limit) {}

  // From now on, links silent for longer than `limit` are cut (zero: none).
  void set_limit(std::chrono::milliseconds limit);

  // A TLS handshake step of session `session` (on socket `fd`) ran at `now`:
  // its silence is counted from the first step (later ones, which this
  // process may take unprompted, keep it).
  void began(const void* session, int fd, Clock::time_point now);
  // The session received bytes from its peer at `now`.
  void heard(const void* session, int fd, Clock::time_point now);
  // The session is being freed: forgets it.
  void forget(const void* session);
  // Calls `cut(fd)` for each session not heard from for longer than the limit
  // before `now` whose socket has no bytes waiting (`waiting(fd)`: its peer
  // spoke, and this process has not read it yet, as after a stall of its
  // own), and forgets them. Both run under the lock that forget() takes, so a
  // session being freed is never cut after its socket closed.
  void cut_silent(Clock::time_point now, const std::function<bool(int fd)>& waiting,
                  const std::function<void(int fd)>& cut);

  [[nodiscard]] std::size_t links() const;

 private:
  struct Link {
    int fd;
    Clock::time_point heard;
  };
  std::chrono::milliseconds limit_;
  mutable std::mutex mutex_;
  std::map<const void*, Link> links_;
};

}  // namespace volador::net
