#pragma once
// Who may ask the master what, by the certificate a message came with
// (net/peer_name.hpp). The master's own actors are trusted; a node (an
// agent, or a client with the admin bundle or a node's) may do what it could
// before rank identities existed (clients are then checked by their token);
// a rank worker (its identity issued by the master for one launch,
// tls/rank_name.hpp) may only do what a rank does: say hello, rejoin and
// report for trials of its own experiment (a warm worker keeps one identity
// across the trials of its experiment; each run's secret token still tells
// the trial which ranks are its own). A peer whose certificate is unknown
// (its connection gone, or a message without a sender) may do nothing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"
#include "runtime/tls/rank_name.hpp"

namespace volador::master {

struct Peer {
  enum class Kind { local, node, rank, unknown };
  Kind kind = Kind::unknown;
  std::string name;                   // the certificate's common name; empty for local and unknown
  std::optional<tls::RankName> rank;  // for a rank
};

// The peer behind a message: `local` when an actor of this process sent it,
// else `certificate_name`, the name its connection presented (nullopt: unknown).
Peer classify_peer(bool local, const std::optional<std::string>& certificate_name);

// What only the master's own actors ask (slots granted, attaching a trial, ...).
// permission_denied naming the peer and `what` otherwise.
Status check_local(const Peer& peer, std::string_view what);

// An agent's or a client's request: refused (permission_denied) to ranks and unknown peers.
Status check_not_rank(const Peer& peer, std::string_view what);

// A rank's request for a trial of experiment `experiment_id`: refused
// (permission_denied) to a rank of another experiment and to unknown peers.
Status check_rank_request(const Peer& peer, std::uint64_t experiment_id, std::string_view what);

}  // namespace volador::master
