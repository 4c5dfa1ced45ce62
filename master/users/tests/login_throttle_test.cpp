#include <catch2/catch.hpp>

#include "master/users/login_throttle.hpp"

using namespace volador::master;

TEST_CASE("Five failures are free and then each failure doubles the wait from 1 s up to 60 s") {
  LoginThrottle throttle;
  std::int64_t now = 1000;
  for (int i = 0; i < 4; ++i) {
    throttle.failed("user:bob", now);
    CHECK_FALSE(throttle.retry_at("user:bob", now));
  }
  for (auto expected : {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000}) {
    throttle.failed("user:bob", now);
    INFO("expected wait " << expected);
    REQUIRE(throttle.retry_at("user:bob", now) == now + expected);
    CHECK(throttle.retry_at("user:bob", now + expected - 1) == now + expected);
    CHECK_FALSE(throttle.retry_at("user:bob", now + expected));
    now += expected;
  }
  CHECK_FALSE(throttle.retry_at("user:alice", now - 1));
}

TEST_CASE("A success forgets the key's failures and other keys keep theirs") {
  LoginThrottle throttle({.free_failures = 1, .first_delay_ms = 500, .max_delay_ms = 4000, .max_keys = 100});
  throttle.failed("user:bob", 0);
  throttle.failed("peer:10.0.0.9", 0);
  CHECK(throttle.retry_at("user:bob", 0) == 500);
  throttle.succeeded("user:bob");
  CHECK_FALSE(throttle.retry_at("user:bob", 0));
  CHECK(throttle.retry_at("peer:10.0.0.9", 0) == 500);
  throttle.failed("user:bob", 0);
  CHECK(throttle.retry_at("user:bob", 0) == 500);  // counting starts again
}

TEST_CASE("Beyond max_keys the keys whose wait is over are forgotten and waiting ones kept") {
  LoginThrottle throttle({.free_failures = 2, .first_delay_ms = 1000, .max_delay_ms = 60000, .max_keys = 3});
  throttle.failed("user:a", 0);
  throttle.failed("user:a", 0);  // waits until 1000
  throttle.failed("user:b", 0);  // no wait
  throttle.failed("user:c", 0);  // no wait
  CHECK(throttle.keys() == 3);
  throttle.failed("user:d", 10);
  CHECK(throttle.keys() == 2);
  CHECK(throttle.retry_at("user:a", 10) == 1000);
}
