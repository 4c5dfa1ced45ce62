#pragma once
// A clock per TLS session of a node link, and the cut of the sessions whose
// clock ran past a limit. openssl_interposers.cpp keeps two:
// - handshakes: a connection accepted on a node port must finish its
//   handshakes (TLS, then the peer's first CAF message) within the handshake
//   limit, or a peer that connects and stays silent (or trickles bytes) would
//   hold a descriptor and a TLS session for good, and a thousand of them would
//   exhaust the master's descriptors;
// - silence: a link whose peer sent nothing for the connection timeout is
//   cut, its silence counted from the link's first handshake step. This
//   replaces CAF 0.17's own check (basp_broker's heartbeat tick), which
//   counted a link this process dialled as silent since time zero until its
//   peer's first message, and so cut at its first tick (within a heartbeat
//   interval) every dial whose peer had not answered yet: on a loaded host,
//   clients, agents and workers failed with connection_timeout to masters
//   that were answering.
// The bookkeeping only: the interposers feed it from the TLS calls CAF makes,
// and their watchdog thread cuts (shutdown(2): CAF then sees the connection
// fail and closes it itself). Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <mutex>

namespace volador::net {

class SessionClocks {
 public:
  using Clock = std::chrono::steady_clock;

  // A zero limit cuts nothing.
  explicit SessionClocks(std::chrono::milliseconds limit) : limit_(limit) {}

  // From now on, clocks past `limit` are cut, those running already included (zero: none).
  void set_limit(std::chrono::milliseconds limit);

  // Starts the clock of `session` (on socket `fd`) at `now`, unless it runs already.
  void start(const void* session, int fd, Clock::time_point now);
  // Starts the clock of `session` again at `now` (its peer spoke).
  void restart(const void* session, int fd, Clock::time_point now);
  // Stops the clock of `session`: its handshake finished, or it is being freed.
  void forget(const void* session);
  // Calls `cut(fd)` for each session whose clock ran for longer than the
  // limit before `now`, except those `spared(fd)` (a socket whose peer's
  // bytes wait unread: this process is the one behind), and forgets them.
  // Both run under the lock that forget() takes, so a session being freed is
  // never cut after its socket closed.
  void cut_expired(Clock::time_point now, const std::function<bool(int fd)>& spared,
                   const std::function<void(int fd)>& cut);

  [[nodiscard]] std::size_t running() const;

 private:
  struct Running {
    int fd;
    Clock::time_point since;
  };
  std::chrono::milliseconds limit_;
  mutable std::mutex mutex_;
  std::map<const void*, Running> clocks_;
};

}  // namespace volador::net
