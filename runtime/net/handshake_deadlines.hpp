#pragma once
// Connections accepted on a node port must finish their handshakes (TLS, then
// the peer's first CAF message) within a deadline or be cut: a peer that
// connects and stays silent (or trickles bytes) would otherwise hold a
// descriptor and a TLS session for good, and a thousand of them would exhaust
// the master's descriptors. The bookkeeping only; openssl_interposers.cpp
// feeds it from the TLS calls CAF makes, and a watchdog thread cuts the
// overdue ones (shutdown(2): CAF then sees the connection fail and closes it
// itself). Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <mutex>

namespace volador::net {

class HandshakeDeadlines {
 public:
  using Clock = std::chrono::steady_clock;

  explicit HandshakeDeadlines(std::chrono::milliseconds limit) : limit_(limit) {}

  // From now on, handshakes older than `limit` are overdue.
  void set_limit(std::chrono::milliseconds limit);

  // A handshake step of accepted session `session` (on socket `fd`) ran at
  // `now` without finishing it: its clock starts the first time.
  void begun(const void* session, int fd, Clock::time_point now);
  // The session's handshake finished, or the session is being freed: forgets it.
  void ended(const void* session);
  // Calls `cut(fd)` for each session whose handshake began more than the
  // limit before `now`, and forgets them. `cut` runs under the lock that
  // ended() takes, so a session being freed is never cut after its socket closed.
  void cut_overdue(Clock::time_point now, const std::function<void(int fd)>& cut);

  [[nodiscard]] std::size_t pending() const;

 private:
  struct Pending {
    int fd;
    Clock::time_point began;
  };
  std::chrono::milliseconds limit_;
  mutable std::mutex mutex_;
  std::map<const void*, Pending> pending_;
};

}  // namespace volador::net
