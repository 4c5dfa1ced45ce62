#pragma once
// Which certificate each node connected to this one presented. CAF 0.17
// tells an actor the node a message came from (a node id each peer picks for
// itself in its BASP handshake), not the certificate of the connection it
// came through; this binds the two, so that the master can authorize by
// identity (master/peer_authorization.hpp). openssl_interposers.cpp feeds it
// the frames of every accepted node link (basp_frame_guard.hpp) before CAF
// sees them, and refuses a frame it refuses (the connection is closed):
//
// - a client handshake binds the session to the node id it names; naming
//   another node than the session's first handshake did, or a node bound to
//   a session of another certificate, is refused: no peer speaks as a node
//   whose connection presented another certificate (but ranks of one
//   experiment may share a node id: sandboxed ranks on one host do);
// - a rank's session (tls/rank_name.hpp) may not speak for another node
//   either: a routed, monitor or down message from it must name its own node
//   as the source. (It may address actors by registered name: CAF's own
//   SpawnServ and ConfigServ queries do, on every new connection.)
//
// Thread-safe: the interposers run on CAF's network thread, the lookups on
// the actors' threads.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/net/basp_frame_guard.hpp"

namespace volador::net {

// BASP message types and flags (caf/io/basp/message_type.hpp, header.hpp).
namespace basp {
inline constexpr std::uint8_t kClientHandshake = 0x01, kDirectMessage = 0x02, kRoutedMessage = 0x03,
                              kMonitorMessage = 0x04, kDownMessage = 0x05;
}  // namespace basp

class PeerIdentities {
 public:
  using NodeBytes = std::vector<std::byte>;  // a node id as CAF serializes it

  // A complete frame of accepted session `session`, whose peer presented a
  // certificate named `name`. False when it must not reach CAF (see above).
  bool admit(const void* session, const std::string& name, const BaspFrame& frame);

  // The session ended: its binding goes.
  void forget(const void* session);

  // The certificate name of the connection node `node` came through; nullopt
  // when no live accepted connection speaks for it.
  [[nodiscard]] std::optional<std::string> name_of(std::span<const std::byte> node) const;

 private:
  struct Session {
    std::string name;
    NodeBytes node;  // empty until its client handshake
  };
  bool bind(const void* session, const std::string& name, const NodeBytes& node);

  mutable std::mutex mutex_;
  std::map<const void*, Session> sessions_;
};

// The process's.
PeerIdentities& peer_identities();

}  // namespace volador::net
