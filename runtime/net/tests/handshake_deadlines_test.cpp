#include <catch2/catch.hpp>

#include <vector>

#include "runtime/net/handshake_deadlines.hpp"

using namespace volador::net;
using namespace std::chrono_literals;

TEST_CASE("Handshakes still going after the limit are cut, finished ones never") {
  HandshakeDeadlines deadlines(5s);
  const auto t0 = HandshakeDeadlines::Clock::time_point{} + 100s;
  int a = 0, b = 0, c = 0;  // stand-ins for sessions
  deadlines.begun(&a, 11, t0);
  deadlines.begun(&b, 12, t0 + 2s);
  deadlines.begun(&c, 13, t0 + 1s);
  deadlines.begun(&a, 11, t0 + 4s);  // a later step of the same handshake keeps its start
  deadlines.ended(&c);                // finished
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  deadlines.cut_overdue(t0 + 5s, collect);
  CHECK(cut.empty());  // exactly at the limit: not yet
  deadlines.cut_overdue(t0 + 6s, collect);
  CHECK(cut == std::vector<int>{11});
  CHECK(deadlines.pending() == 1);
  deadlines.cut_overdue(t0 + 8s, collect);
  CHECK(cut == std::vector<int>{11, 12});
  CHECK(deadlines.pending() == 0);
  deadlines.cut_overdue(t0 + 60s, collect);  // cut once only
  CHECK(cut.size() == 2);
}

TEST_CASE("A freed session is forgotten before its socket could be reused") {
  HandshakeDeadlines deadlines(1s);
  const auto t0 = HandshakeDeadlines::Clock::time_point{};
  int session = 0;
  deadlines.begun(&session, 7, t0);
  deadlines.ended(&session);  // SSL_free
  std::vector<int> cut;
  deadlines.cut_overdue(t0 + 10s, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
}

TEST_CASE("A new limit applies to the handshakes already pending") {
  HandshakeDeadlines deadlines(5s);
  const auto t0 = HandshakeDeadlines::Clock::time_point{} + 100s;
  int session = 0;
  deadlines.begun(&session, 9, t0);
  std::vector<int> cut;
  deadlines.cut_overdue(t0 + 2s, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
  deadlines.set_limit(1s);
  deadlines.cut_overdue(t0 + 2s, [&](int fd) { cut.push_back(fd); });
  CHECK(cut == std::vector<int>{9});
}
