#include <catch2/catch.hpp>

#include "actors/trial_internal.hpp"

using namespace volador::actors;
using namespace volador::actors::trial_internal;

namespace {

// A trial waiting for the two ranks of its run 3 to rejoin.
TrialState reattaching_trial() {
  TrialState st;
  st.phase = Phase::reattaching;
  st.spec.record.run_id = 3;
  st.token = "secret";
  st.ranks.resize(2);
  return st;
}

}  // namespace

TEST_CASE("A rank of the current run with its token is expected once") {
  auto st = reattaching_trial();
  CHECK(expects_report(st, Phase::reattaching, {3, 1, "secret"}));
  st.ranks[1].hello.emplace();  // it reported
  CHECK_FALSE(expects_report(st, Phase::reattaching, {3, 1, "secret"}));
  CHECK(expects_report(st, Phase::reattaching, {3, 0, "secret"}));
}

TEST_CASE("A report with a bad token, from another run, of no rank of the run or at the wrong time is refused") {
  const auto st = reattaching_trial();
  CHECK_FALSE(expects_report(st, Phase::reattaching, {3, 0, "guess"}));
  CHECK_FALSE(expects_report(st, Phase::reattaching, {3, 0, ""}));
  CHECK_FALSE(expects_report(st, Phase::reattaching, {2, 0, "secret"}));
  CHECK_FALSE(expects_report(st, Phase::reattaching, {3, 2, "secret"}));
  CHECK_FALSE(expects_report(st, Phase::launching, {3, 0, "secret"}));  // a hello while rejoins are awaited
}
