#include <catch2/catch.hpp>

#include "actors/log_window.hpp"

using namespace volador::actors;

namespace {

const RankKey kRank0{7, 1, 0};
const RankKey kRank1{7, 1, 1};

}  // namespace

TEST_CASE("A rank has at most the window's messages of output unanswered, and each answer frees one place") {
  LogWindow window(2);
  const auto first = window.sent(kRank0, 0);
  REQUIRE(window.has_room(kRank0));
  const auto second = window.sent(kRank0, 0);
  CHECK_FALSE(window.has_room(kRank0));
  CHECK(window.in_flight(kRank0) == 2);
  CHECK(window.has_room(kRank1));  // another rank's window is its own
  CHECK(window.answered(second) == kRank0);
  CHECK(window.has_room(kRank0));
  CHECK(window.answered(first) == kRank0);
  CHECK(window.in_flight(kRank0) == 0);
}

TEST_CASE("An answer counts once: a second answer to a ticket frees no other message's place") {
  LogWindow window(1);
  const auto first = window.sent(kRank0, 0);
  CHECK(window.answered(first) == kRank0);
  const auto second = window.sent(kRank0, 0);
  CHECK(second != first);
  CHECK_FALSE(window.answered(first));  // e.g. a timeout after the answer
  CHECK_FALSE(window.has_room(kRank0));
  CHECK(window.answered(second) == kRank0);
}

TEST_CASE("Losing the master frees every place, and late answers to the lost master's messages free nothing") {
  LogWindow window(2);
  const auto lost_a = window.sent(kRank0, 0);
  const auto lost_b = window.sent(kRank0, 0);
  window.forget_all();
  CHECK(window.in_flight(kRank0) == 0);
  const auto after = window.sent(kRank0, 0);
  window.sent(kRank0, 0);
  CHECK_FALSE(window.answered(lost_a));
  CHECK_FALSE(window.answered(lost_b));
  CHECK_FALSE(window.has_room(kRank0));  // the two messages to the new master still count
  CHECK(window.answered(after) == kRank0);
  CHECK(window.in_flight(kRank0) == 1);
}

TEST_CASE("A message unanswered for the patience frees its place, and its late answer frees nothing") {
  LogWindow window(2);
  const auto first = window.sent(kRank0, 1000);
  const auto second = window.sent(kRank0, 1500);
  const auto other = window.sent(kRank1, 1200);
  CHECK(window.expire(1999, 1000).empty());
  CHECK(window.expire(2000, 1000) == std::vector<RankKey>{kRank0});
  CHECK(window.in_flight(kRank0) == 1);
  CHECK(window.has_room(kRank0));
  CHECK_FALSE(window.answered(first));
  CHECK(window.in_flight(kRank0) == 1);
  CHECK(window.expire(2600, 1000) == std::vector<RankKey>{kRank0, kRank1});  // in the order sent
  CHECK(window.in_flight(kRank0) == 0);
  CHECK(window.in_flight(kRank1) == 0);
  CHECK_FALSE(window.answered(second));
  CHECK_FALSE(window.answered(other));
  CHECK(window.expire(100000, 1000).empty());
}
