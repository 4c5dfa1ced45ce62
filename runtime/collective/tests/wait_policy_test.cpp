#include <catch2/catch.hpp>

#include "runtime/collective/wait_policy.hpp"

using namespace volador::collective;
using namespace std::chrono_literals;

TEST_CASE("The spin budget halves when spinning is wasted and grows back when it pays off") {
  SpinPolicy policy(1);
  CHECK(policy.budget() == SpinPolicy::kMaxSpin);
  policy.wasted();
  policy.wasted();
  CHECK(policy.budget() == SpinPolicy::kMaxSpin / 4);
  for (int i = 0; i < 50; ++i) policy.paid_off();
  CHECK(policy.budget() == SpinPolicy::kMaxSpin);
  for (int i = 0; i < 10; ++i) policy.wasted();
  CHECK(policy.budget() == 0us);
  policy.paid_off();
  CHECK(policy.budget() > 0us);  // recovers from zero
}

TEST_CASE("Ranks that outnumber the cores never spin") {
  SpinPolicy policy(usable_cpus() + 1);
  CHECK(policy.budget() == 0us);
  policy.paid_off();
  CHECK(policy.budget() == 0us);
  Backoff backoff(policy);
  CHECK(backoff.next() == Backoff::Step::yield);
}

TEST_CASE("A wait spins first and counts a quick answer as spinning that paid off") {
  SpinPolicy policy(1);
  policy.wasted();
  const auto halved = policy.budget();
  Backoff backoff(policy);
  CHECK(backoff.next() == Backoff::Step::spin);
  backoff.done();
  CHECK(policy.budget() > halved);
}
