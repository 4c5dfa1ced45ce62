#include <catch2/catch.hpp>

#include "runtime/trial_output/output_budget.hpp"

using namespace volador;
using namespace volador::trial_output;

namespace {

constexpr std::uint64_t kRoom = 1ull << 40;  // a buffer that never fills

struct Fixture {
  std::int64_t now_ms = 1'000'000;
  OutputLimits limits{.bytes_per_second = 1000, .burst_bytes = 100, .max_bytes = 10'000};
  OutputBudget budget{limits, [this] { return now_ms; }};
};

}  // namespace

TEST_CASE("Lines within the burst are kept without a marker") {
  Fixture f;
  for (int i = 0; i < 10; ++i) {
    auto admission = f.budget.admit(10, kRoom);
    CHECK(admission.keep);
    CHECK_FALSE(admission.marker);
  }
  CHECK(f.budget.kept_bytes() == 100);
  CHECK_FALSE(f.budget.finish());
}

TEST_CASE("Lines over the rate are dropped and the next kept line brings their marker") {
  Fixture f;
  REQUIRE(f.budget.admit(100, kRoom).keep);  // the whole burst
  CHECK_FALSE(f.budget.admit(10, kRoom).keep);
  CHECK_FALSE(f.budget.admit(20, kRoom).keep);
  f.now_ms += 50;  // 50 bytes refilled at 1000 B/s
  auto admission = f.budget.admit(50, kRoom);
  CHECK(admission.keep);
  REQUIRE(admission.marker);
  CHECK(*admission.marker ==
        "volador: 2 lines (30 B) of output dropped: 2 (30 B) printed faster than 1000 B/s (bursts of 100 B pass)");
  CHECK_FALSE(f.budget.admit(1, kRoom).keep);  // the bucket is empty again
  CHECK(f.budget.finish() ==
        "volador: 1 lines (1 B) of output dropped: 1 (1 B) printed faster than 1000 B/s (bursts of 100 B pass)");
  CHECK_FALSE(f.budget.finish());  // counted once
}

TEST_CASE("The bucket refills to the burst and no further") {
  Fixture f;
  f.now_ms += 3'600'000;
  CHECK(f.budget.admit(100, kRoom).keep);
  CHECK_FALSE(f.budget.admit(1, kRoom).keep);
}

TEST_CASE("A clock that steps back refills nothing") {
  Fixture f;
  REQUIRE(f.budget.admit(100, kRoom).keep);
  f.now_ms -= 60'000;
  CHECK_FALSE(f.budget.admit(1, kRoom).keep);
  f.now_ms += 60'010;  // 10 ms after the last refill
  CHECK(f.budget.admit(10, kRoom).keep);
}

TEST_CASE("Past the cap every line is dropped: one marker when reached and the count at the end") {
  Fixture f;
  f.limits.burst_bytes = 100'000;
  OutputBudget budget(f.limits, [&f] { return f.now_ms; });
  for (int i = 0; i < 100; ++i) REQUIRE(budget.admit(100, kRoom).keep);
  auto reached = budget.admit(100, kRoom);
  CHECK_FALSE(reached.keep);
  REQUIRE(reached.marker);
  CHECK(*reached.marker ==
        "volador: this worker's output reached the 9.8 KiB a worker may log: later lines are dropped and counted when "
        "it ends");
  f.now_ms += 3'600'000;
  for (int i = 0; i < 4; ++i) {
    auto later = budget.admit(1, kRoom);
    CHECK_FALSE(later.keep);
    CHECK_FALSE(later.marker);
  }
  CHECK(budget.kept_bytes() == 10'000);
  CHECK(budget.finish() == "volador: 5 lines (104 B) of output dropped: 5 (104 B) past the 9.8 KiB a worker may log");
}

TEST_CASE("A line the buffer has no room for is dropped without using the rate") {
  Fixture f;
  CHECK_FALSE(f.budget.admit(10, 9).keep);
  auto admission = f.budget.admit(100, 100);  // the whole burst is still there
  CHECK(admission.keep);
  REQUIRE(admission.marker);
  CHECK(*admission.marker ==
        "volador: 1 lines (10 B) of output dropped: 1 (10 B) while the agent's buffer was full (the master away or "
        "slow)");
}

TEST_CASE("One marker names every reason with its count") {
  Fixture f;
  REQUIRE(f.budget.admit(100, kRoom).keep);
  CHECK_FALSE(f.budget.admit(7, kRoom).keep);  // rate
  CHECK_FALSE(f.budget.admit(3, 0).keep);      // room
  CHECK(f.budget.finish() ==
        "volador: 2 lines (10 B) of output dropped: 1 (7 B) printed faster than 1000 B/s (bursts of 100 B pass); 1 "
        "(3 B) while the agent's buffer was full (the master away or slow)");
}

TEST_CASE("Byte counts read as people write them") {
  CHECK(describe_bytes(0) == "0 B");
  CHECK(describe_bytes(1023) == "1023 B");
  CHECK(describe_bytes(1536) == "1.5 KiB");
  CHECK(describe_bytes(1ull << 20) == "1.0 MiB");
  CHECK(describe_bytes(5ull << 30) == "5.0 GiB");
  CHECK(describe_bytes(~0ull) == "16384.0 PiB");
}
