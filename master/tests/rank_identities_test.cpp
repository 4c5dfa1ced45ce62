#include <catch2/catch.hpp>

#include "master/rank_identities.hpp"

using namespace volador;
using namespace volador::master;
using namespace std::chrono_literals;

namespace {

// A CA that names each identity after the rank it was issued for, and counts them.
struct CountingCa {
  int issued = 0;
  bool readable = true;
  RankIdentities::Issue issue() {
    return [this](const tls::RankName& rank) -> Result<tls::Identity> {
      if (!readable) return fail(Error::internal("the CA is unreadable"));
      ++issued;
      return tls::Identity{"ca", "certificate of " + rank.common_name(), "key " + std::to_string(issued)};
    };
  }
};

tls::RankName rank_of(std::uint64_t experiment, std::uint64_t trial) { return {experiment, trial, 1, 0}; }

}  // namespace

TEST_CASE("The launches of one experiment on one agent share an identity, other experiments and agents get their own") {
  CountingCa ca;
  std::int64_t now = 0;
  RankIdentities identities(ca.issue(), 1000ms, [&] { return now; });
  const auto first = identities.for_launch("agent-a", rank_of(3, 10)).value();
  CHECK(first.certificate == "certificate of rank:3:10:1.0");
  CHECK(identities.for_launch("agent-a", rank_of(3, 11)).value().private_key == first.private_key);
  CHECK(ca.issued == 1);
  CHECK(identities.for_launch("agent-b", rank_of(3, 12)).value().private_key != first.private_key);
  CHECK(identities.for_launch("agent-a", rank_of(4, 13)).value().private_key != first.private_key);
  CHECK(ca.issued == 3);
}

TEST_CASE("An identity is issued anew once half its validity is gone") {
  CountingCa ca;
  std::int64_t now = 0;
  RankIdentities identities(ca.issue(), 1000ms, [&] { return now; });
  const auto first = identities.for_launch("agent-a", rank_of(3, 10)).value();
  now = 499;
  CHECK(identities.for_launch("agent-a", rank_of(3, 11)).value().private_key == first.private_key);
  now = 500;
  const auto renewed = identities.for_launch("agent-a", rank_of(3, 12)).value();
  CHECK(renewed.private_key != first.private_key);
  CHECK(renewed.certificate == "certificate of rank:3:12:1.0");
  now = 999;
  CHECK(identities.for_launch("agent-a", rank_of(3, 13)).value().private_key == renewed.private_key);
}

TEST_CASE("A CA that cannot sign fails the launch, and nothing is kept") {
  CountingCa ca;
  RankIdentities identities(ca.issue(), 1000ms, [] { return 0; });
  ca.readable = false;
  CHECK_FALSE(identities.for_launch("agent-a", rank_of(3, 10)));
  ca.readable = true;
  CHECK(identities.for_launch("agent-a", rank_of(3, 11)).value().certificate == "certificate of rank:3:11:1.0");
}

TEST_CASE("Past its capacity the identity issued longest ago is dropped") {
  CountingCa ca;
  std::int64_t now = 0;
  RankIdentities identities(ca.issue(), 1000ms, [&] { return now; }, 2);
  (void)identities.for_launch("agent-a", rank_of(1, 1));
  now = 1;
  (void)identities.for_launch("agent-a", rank_of(2, 2));
  now = 2;
  (void)identities.for_launch("agent-a", rank_of(3, 3));  // experiment 1's goes
  CHECK(ca.issued == 3);
  (void)identities.for_launch("agent-a", rank_of(2, 4));
  CHECK(ca.issued == 3);
  (void)identities.for_launch("agent-a", rank_of(1, 5));
  CHECK(ca.issued == 4);
}
