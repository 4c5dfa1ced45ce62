#include <catch2/catch.hpp>

#include "runtime/collective/wait_policy.hpp"

using namespace volador::collective;
using namespace std::chrono_literals;

TEST_CASE("Spinning stops after spins that did not pay off and resumes after a probe that did") {
  SpinPolicy policy(1);
  CHECK(policy.should_spin());
  policy.record(false);
  policy.record(false);
  int spins = 0;
  for (int i = 0; i < 128; ++i) spins += policy.should_spin() ? 1 : 0;
  CHECK(spins == 2);  // only the periodic probes
  policy.record(true);  // a probe paid off
  CHECK(policy.should_spin());
}

TEST_CASE("An occasional slow peer does not stop spinning") {
  SpinPolicy policy(1);
  for (int i = 0; i < 100; ++i) {
    REQUIRE(policy.should_spin());
    policy.record(i % 5 != 0);  // the first wait of each call is long
  }
}

TEST_CASE("Ranks that outnumber the cores never spin") {
  SpinPolicy policy(usable_cpus() + 1);
  CHECK(policy.budget() == 0us);
  for (int i = 0; i < 200; ++i) CHECK_FALSE(policy.should_spin());
  Backoff backoff(policy);
  CHECK(backoff.next() == Backoff::Step::yield);
}

TEST_CASE("A wait spins first and counts a quick answer as a spin that paid off") {
  SpinPolicy policy(1);
  policy.record(false);
  Backoff backoff(policy);
  CHECK(backoff.next() == Backoff::Step::spin);
  backoff.done();
  policy.record(false);  // score: 8 - 4 + 1 - 4 = 1, still spinning
  CHECK(policy.should_spin());
}
