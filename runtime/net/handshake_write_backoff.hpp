#pragma once
// CAF 0.17's TLS sessions spin while an accepted connection's handshake waits
// for its peer (CAF issue #1060, fixed in CAF 0.18): CAF has bytes to write
// (BASP's server speaks first), the socket is writable, SSL_accept wants to
// read, and epoll reports the socket writable again at once, so one silent
// peer keeps the node's network thread at 100 % of a core until its
// handshake limit cuts it. This keeps, per socket, the events CAF registered
// with epoll, and takes EPOLLOUT away while such a handshake waits for its
// peer; the next handshake step (the socket turned readable) gives it back,
// as CAF 0.18 does. openssl_interposers.cpp feeds it from CAF's epoll_ctl
// and SSL_accept calls. Thread-safe.

#include <sys/epoll.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

namespace volador::net {

class HandshakeWriteBackoff {
 public:
  using EpollCtl = std::function<int(int epfd, int op, int fd, epoll_event* event)>;

  // `real` carries out the epoll_ctl calls (the C library's, in production).
  explicit HandshakeWriteBackoff(EpollCtl real) : real_(std::move(real)) {}

  // CAF's epoll_ctl call, carried out, without EPOLLOUT while `fd` backs off
  // (EPOLL_CTL_DEL ends the backoff).
  int control(int epfd, int op, int fd, epoll_event* event);
  // The handshake on `fd` waits for its peer: no EPOLLOUT until resume(fd).
  void back_off(int fd);
  // A handshake step on `fd` begins: it gets the events CAF wants back.
  void resume(int fd);
  // The socket's session is gone: forgets `fd` (its number may be reused).
  void forget(int fd);

 private:
  struct Registration {
    int epfd = -1;          // -1 until CAF registers the socket
    epoll_event wanted{};   // what CAF asked for last
    bool backing_off = false;
  };
  // Has `fd`'s registration in epoll say `events` (CAF's data kept).
  void apply(int fd, const Registration& registration, std::uint32_t events);

  EpollCtl real_;
  std::mutex mutex_;
  std::unordered_map<int, Registration> fds_;
};

}  // namespace volador::net
