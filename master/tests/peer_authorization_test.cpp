#include <catch2/catch.hpp>

#include "master/peer_authorization.hpp"

using namespace volador;
using namespace volador::master;

TEST_CASE("A peer is told by its certificate's name") {
  CHECK(classify_peer(true, std::nullopt).kind == Peer::Kind::local);
  CHECK(classify_peer(false, std::nullopt).kind == Peer::Kind::unknown);
  CHECK(classify_peer(false, std::string("agent-a")).kind == Peer::Kind::node);
  CHECK(classify_peer(false, std::string("admin")).kind == Peer::Kind::node);
  const auto rank = classify_peer(false, std::string("rank:4:17:2.1"));
  CHECK(rank.kind == Peer::Kind::rank);
  CHECK(rank.rank == tls::RankName{4, 17, 2, 1});
}

TEST_CASE("A rank identity may only make a rank's requests, for its own experiment") {
  const auto rank = classify_peer(false, std::string("rank:4:17:2.1"));
  CHECK(check_rank_request(rank, 4, "say hello for a trial"));
  auto other = check_rank_request(rank, 5, "say hello for a trial");
  REQUIRE_FALSE(other);
  CHECK(other.error().code == ErrorCode::permission_denied);
  CHECK(other.error().message == "'rank:4:17:2.1' may not say hello for a trial of experiment 5");
  auto as_agent = check_not_rank(rank, "register as an agent");
  REQUIRE_FALSE(as_agent);
  CHECK(as_agent.error().message == "'rank:4:17:2.1' may not register as an agent");
  CHECK_FALSE(check_local(rank, "grant slots"));
}

TEST_CASE("Nodes keep what they could do, the master's own actors everything, unknown peers nothing") {
  const auto agent = classify_peer(false, std::string("agent-a"));
  const auto local = classify_peer(true, std::nullopt);
  const auto unknown = classify_peer(false, std::nullopt);
  CHECK((check_not_rank(agent, "x") && check_rank_request(agent, 5, "x")));
  CHECK_FALSE(check_local(agent, "grant slots"));
  CHECK((check_local(local, "x") && check_not_rank(local, "x") && check_rank_request(local, 5, "x")));
  CHECK_FALSE(check_not_rank(unknown, "x"));
  auto refused = check_rank_request(unknown, 5, "report metrics");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "a peer whose certificate is unknown may not report metrics of experiment 5");
}
