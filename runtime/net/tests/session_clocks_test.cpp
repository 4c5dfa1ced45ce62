#include <catch2/catch.hpp>

#include <vector>

#include "runtime/net/session_clocks.hpp"

using namespace volador::net;
using namespace std::chrono_literals;

namespace {
const auto t0 = SessionClocks::Clock::time_point{} + 1000s;
const auto none_spared = [](int) { return false; };
}  // namespace

TEST_CASE("Handshakes still going after the limit are cut, finished ones never") {
  SessionClocks handshakes(5s);
  int a = 0, b = 0, c = 0;  // stand-ins for sessions
  handshakes.start(&a, 11, t0);
  handshakes.start(&b, 12, t0 + 2s);
  handshakes.start(&c, 13, t0 + 1s);
  handshakes.start(&a, 11, t0 + 4s);  // a later step of the same handshake keeps its start
  handshakes.forget(&c);              // finished
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  handshakes.cut_expired(t0 + 5s, none_spared, collect);
  CHECK(cut.empty());  // exactly at the limit: not yet
  handshakes.cut_expired(t0 + 6s, none_spared, collect);
  CHECK(cut == std::vector<int>{11});
  CHECK(handshakes.running() == 1);
  handshakes.cut_expired(t0 + 8s, none_spared, collect);
  CHECK(cut == std::vector<int>{11, 12});
  CHECK(handshakes.running() == 0);
  handshakes.cut_expired(t0 + 60s, none_spared, collect);  // cut once only
  CHECK(cut.size() == 2);
}

TEST_CASE("A freed session is forgotten before its socket could be reused") {
  SessionClocks handshakes(1s);
  int session = 0;
  handshakes.start(&session, 7, t0);
  handshakes.forget(&session);  // SSL_free
  std::vector<int> cut;
  handshakes.cut_expired(t0 + 10s, none_spared, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
}

TEST_CASE("A new limit applies to the clocks already running and a zero limit cuts none") {
  SessionClocks handshakes(5s);
  int session = 0;
  handshakes.start(&session, 9, t0);
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  handshakes.cut_expired(t0 + 2s, none_spared, collect);
  CHECK(cut.empty());
  handshakes.set_limit(0ms);
  handshakes.cut_expired(t0 + 60s, none_spared, collect);
  CHECK(cut.empty());
  handshakes.set_limit(1s);
  handshakes.cut_expired(t0 + 2s, none_spared, collect);
  CHECK(cut == std::vector<int>{9});
}

TEST_CASE("A link is cut once silent for longer than the limit since it began, not since time zero") {
  SessionClocks silence(10s);
  int dialled = 0;
  silence.start(&dialled, 7, t0);
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  silence.cut_expired(t0 + 500ms, none_spared, collect);  // CAF's first tick cut it here
  silence.cut_expired(t0 + 10s, none_spared, collect);    // exactly at the limit: not yet
  CHECK(cut.empty());
  silence.cut_expired(t0 + 11s, none_spared, collect);
  CHECK(cut == std::vector<int>{7});
}

TEST_CASE("Bytes from the peer restart a link's silence, later handshake steps do not") {
  SessionClocks silence(10s);
  int a = 0, b = 0;
  silence.start(&a, 11, t0);
  silence.start(&b, 12, t0);
  silence.start(&a, 11, t0 + 8s);    // a step this process took unprompted
  silence.restart(&b, 12, t0 + 8s);  // the peer spoke
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  silence.cut_expired(t0 + 12s, none_spared, collect);
  CHECK(cut == std::vector<int>{11});
  silence.cut_expired(t0 + 19s, none_spared, collect);
  CHECK(cut == std::vector<int>{11, 12});
}

TEST_CASE("A link whose peer's bytes wait unread is spared") {
  SessionClocks silence(1s);
  int behind = 0;
  silence.start(&behind, 5, t0);  // this process stalled: its peer's heartbeats wait in the socket
  std::vector<int> cut;
  silence.cut_expired(t0 + 30s, [](int fd) { return fd == 5; }, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
  silence.cut_expired(t0 + 30s, none_spared, [&](int fd) { cut.push_back(fd); });
  CHECK(cut == std::vector<int>{5});
}
