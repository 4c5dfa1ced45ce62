#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "runtime/net/peer_identities.hpp"

using namespace volador::net;

namespace {

std::vector<std::byte> node(unsigned char id) { return std::vector<std::byte>(24, std::byte{id}); }

BaspFrame handshake(const std::vector<std::byte>& node_bytes) {
  return {basp::kClientHandshake, 0, static_cast<std::uint32_t>(node_bytes.size()), node_bytes};
}

// A routed message from `source` (its payload starts with the source node, then the destination's).
struct Routed {
  std::vector<std::byte> payload;
  explicit Routed(const std::vector<std::byte>& source) : payload(source) {
    payload.insert(payload.end(), 24, std::byte{0xee});
  }
  [[nodiscard]] BaspFrame frame(std::uint8_t operation = basp::kRoutedMessage) const {
    return {operation, 0, static_cast<std::uint32_t>(payload.size()), payload};
  }
};

const std::string kRank = "rank:1:7:1.0";
const int kAgentSession = 1, kRankSession = 2, kOtherSession = 3;

}  // namespace

TEST_CASE("A connection's certificate is bound to the node its handshake names, and goes with it") {
  PeerIdentities identities;
  REQUIRE(identities.admit(&kAgentSession, "agent-a", handshake(node(1))));
  REQUIRE(identities.admit(&kRankSession, kRank, handshake(node(2))));
  CHECK(identities.name_of(node(1)) == "agent-a");
  CHECK(identities.name_of(node(2)) == kRank);
  CHECK_FALSE(identities.name_of(node(3)).has_value());
  identities.forget(&kRankSession);
  CHECK_FALSE(identities.name_of(node(2)).has_value());
  CHECK(identities.name_of(node(1)) == "agent-a");
}

TEST_CASE("No connection speaks as a node whose connection presented another certificate") {
  PeerIdentities identities;
  REQUIRE(identities.admit(&kAgentSession, "agent-a", handshake(node(1))));
  CHECK_FALSE(identities.admit(&kRankSession, kRank, handshake(node(1))));  // a rank claiming the agent's node
  CHECK(identities.name_of(node(1)) == "agent-a");
  CHECK(identities.admit(&kOtherSession, "agent-a", handshake(node(1))));  // the agent's second connection
  CHECK(identities.admit(&kAgentSession, "agent-a", handshake(node(1))));  // a repeated handshake
  CHECK_FALSE(identities.admit(&kAgentSession, "agent-a", handshake(node(4))));  // another node later
  // ranks of one experiment may share a node id (sandboxed on one host), of another experiment not
  const int kSecondRank = 4, kForeignRank = 5;
  REQUIRE(identities.admit(&kRankSession, kRank, handshake(node(2))));
  CHECK(identities.admit(&kSecondRank, "rank:1:7:1.1", handshake(node(2))));
  CHECK_FALSE(identities.admit(&kForeignRank, "rank:2:9:1.0", handshake(node(2))));
  // a "node id" longer than the head a frame observer sees
  const std::vector<std::byte> head(kBaspFrameHeadBytes, std::byte{9});
  CHECK_FALSE(identities.admit(&kRankSession, kRank, {basp::kClientHandshake, 0, kBaspFrameHeadBytes + 44, head}));
}

TEST_CASE("A rank's connection may not speak for another node") {
  PeerIdentities identities;
  REQUIRE(identities.admit(&kAgentSession, "agent-a", handshake(node(1))));
  REQUIRE(identities.admit(&kRankSession, kRank, handshake(node(2))));
  for (auto operation : {basp::kRoutedMessage, basp::kMonitorMessage, basp::kDownMessage}) {
    CHECK(identities.admit(&kRankSession, kRank, Routed(node(2)).frame(operation)));
    CHECK_FALSE(identities.admit(&kRankSession, kRank, Routed(node(1)).frame(operation)));
    CHECK(identities.admit(&kAgentSession, "agent-a", Routed(node(7)).frame(operation)));  // nodes route for others
  }
  CHECK(identities.admit(&kRankSession, kRank, {basp::kDirectMessage, 0, 0, {}}));
  // before its handshake, a rank has no node to speak for
  CHECK_FALSE(identities.admit(&kOtherSession, kRank, Routed(node(3)).frame()));
}
