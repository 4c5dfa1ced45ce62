#include <catch2/catch.hpp>

#include <vector>

#include "runtime/net/link_silence.hpp"

using namespace volador::net;
using namespace std::chrono_literals;

namespace {
const auto t0 = LinkSilence::Clock::time_point{} + 1000s;
auto nothing_waiting = [](int) { return false; };
}  // namespace

TEST_CASE("A link is cut once silent for longer than the limit since it began, not since time zero") {
  LinkSilence silence(10s);
  int dialled = 0;  // stand-in for a session
  silence.began(&dialled, 7, t0);
  std::vector<int> cut;
  auto collect = [&](int fd) { cut.push_back(fd); };
  silence.cut_silent(t0 + 500ms, nothing_waiting, collect);  // CAF's first tick cut it here
  silence.cut_silent(t0 + 10s, nothing_waiting, collect);    // exactly at the limit: not yet
  CHECK(cut.empty());
  silence.cut_silent(t0 + 11s, nothing_waiting, collect);
  CHECK(cut == std::vector<int>{7});
  CHECK(silence.links() == 0);
  silence.cut_silent(t0 + 60s, nothing_waiting, collect);  // cut once only
  CHECK(cut.size() == 1);
}

TEST_CASE("Bytes from the peer restart a link's silence, later handshake steps do not") {
  LinkSilence silence(10s);
  int a = 0, b = 0;
  silence.began(&a, 11, t0);
  silence.began(&b, 12, t0);
  silence.began(&a, 11, t0 + 8s);  // a step this process took unprompted
  silence.heard(&b, 12, t0 + 8s);  // the peer spoke
  std::vector<int> cut;
  silence.cut_silent(t0 + 12s, nothing_waiting, [&](int fd) { cut.push_back(fd); });
  CHECK(cut == std::vector<int>{11});
  silence.cut_silent(t0 + 19s, nothing_waiting, [&](int fd) { cut.push_back(fd); });
  CHECK(cut == std::vector<int>{11, 12});
}

TEST_CASE("A link whose peer's bytes wait unread is not silent, a freed one is forgotten, a zero limit cuts none") {
  LinkSilence silence(1s);
  int behind = 0, freed = 0;
  silence.began(&behind, 5, t0);  // this process stalled: its peer's heartbeats wait in the socket
  silence.began(&freed, 6, t0);
  silence.forget(&freed);  // SSL_free
  std::vector<int> cut;
  silence.cut_silent(t0 + 30s, [](int fd) { return fd == 5; }, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
  silence.set_limit(0ms);
  silence.cut_silent(t0 + 60s, nothing_waiting, [&](int fd) { cut.push_back(fd); });
  CHECK(cut.empty());
  silence.set_limit(1s);
  silence.cut_silent(t0 + 60s, nothing_waiting, [&](int fd) { cut.push_back(fd); });
  CHECK(cut == std::vector<int>{5});
}
