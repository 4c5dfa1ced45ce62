#include <catch2/catch.hpp>

#include <vector>

#include "runtime/net/handshake_write_backoff.hpp"

using volador::net::HandshakeWriteBackoff;

namespace {

struct Call {
  int epfd;
  int op;
  int fd;
  std::uint32_t events;
  void* data;
  bool operator==(const Call&) const = default;
};

// A backoff whose epoll_ctl calls are recorded instead of carried out.
struct Recorded {
  std::vector<Call> calls;
  HandshakeWriteBackoff backoff{[this](int epfd, int op, int fd, epoll_event* event) {
    calls.push_back({epfd, op, fd, event == nullptr ? 0u : event->events, event == nullptr ? nullptr : event->data.ptr});
    return 0;
  }};
};

epoll_event wanting(std::uint32_t events, void* handler) {
  epoll_event event{};
  event.events = events;
  event.data.ptr = handler;
  return event;
}

int handler = 0;  // stands for CAF's event handler, which epoll hands back

}  // namespace

TEST_CASE("A socket whose handshake waits for its peer loses its write interest until the next step") {
  Recorded r;
  auto in_out = wanting(EPOLLIN | EPOLLOUT, &handler);
  r.backoff.control(3, EPOLL_CTL_ADD, 7, &in_out);
  r.backoff.back_off(7);
  r.backoff.back_off(7);  // once is enough
  r.backoff.resume(7);
  r.backoff.resume(7);  // nothing to give back twice
  CHECK(r.calls == std::vector<Call>{{3, EPOLL_CTL_ADD, 7, EPOLLIN | EPOLLOUT, &handler},
                                     {3, EPOLL_CTL_MOD, 7, EPOLLIN, &handler},
                                     {3, EPOLL_CTL_MOD, 7, EPOLLIN | EPOLLOUT, &handler}});
}

TEST_CASE("What CAF registers while a socket backs off is carried out without EPOLLOUT, and given back in full") {
  Recorded r;
  r.backoff.back_off(7);  // SSL_accept runs before CAF registers the socket
  auto in_only = wanting(EPOLLIN, &handler);
  r.backoff.control(3, EPOLL_CTL_ADD, 7, &in_only);
  auto in_out = wanting(EPOLLIN | EPOLLOUT, &handler);
  r.backoff.control(3, EPOLL_CTL_MOD, 7, &in_out);  // CAF has bytes to write
  r.backoff.resume(7);
  CHECK(r.calls == std::vector<Call>{{3, EPOLL_CTL_ADD, 7, EPOLLIN, &handler},
                                     {3, EPOLL_CTL_MOD, 7, EPOLLIN, &handler},
                                     {3, EPOLL_CTL_MOD, 7, EPOLLIN | EPOLLOUT, &handler}});
}

TEST_CASE("Other sockets, removed ones and forgotten ones pass through untouched") {
  Recorded r;
  auto in_out = wanting(EPOLLIN | EPOLLOUT, &handler);
  r.backoff.control(3, EPOLL_CTL_ADD, 8, &in_out);       // never backs off
  r.backoff.back_off(9);                                 // never registered: nothing to change
  r.backoff.resume(9);
  r.backoff.control(3, EPOLL_CTL_ADD, 7, &in_out);
  r.backoff.back_off(7);
  r.backoff.control(3, EPOLL_CTL_DEL, 7, nullptr);       // CAF closes it while it waits
  r.backoff.resume(7);                                   // nothing to give back to a removed socket
  r.backoff.control(3, EPOLL_CTL_ADD, 7, &in_out);       // the number, reused by a new connection
  r.backoff.back_off(8);
  r.backoff.forget(8);                                   // its session is freed
  r.backoff.resume(8);
  CHECK(r.calls == std::vector<Call>{{3, EPOLL_CTL_ADD, 8, EPOLLIN | EPOLLOUT, &handler},
                                     {3, EPOLL_CTL_ADD, 7, EPOLLIN | EPOLLOUT, &handler},
                                     {3, EPOLL_CTL_MOD, 7, EPOLLIN, &handler},
                                     {3, EPOLL_CTL_DEL, 7, 0u, nullptr},
                                     {3, EPOLL_CTL_ADD, 7, EPOLLIN | EPOLLOUT, &handler},
                                     {3, EPOLL_CTL_MOD, 8, EPOLLIN, &handler}});
}
