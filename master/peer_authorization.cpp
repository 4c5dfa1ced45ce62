#include "master/peer_authorization.hpp"

#include <fmt/format.h>

namespace volador::master {
namespace {

Error denied(const Peer& peer, std::string_view what) {
  const auto who = peer.kind == Peer::Kind::unknown ? std::string("a peer whose certificate is unknown")
                                                    : fmt::format("'{}'", peer.name);
  return Error::permission_denied(fmt::format("{} may not {}", who, what));
}

}  // namespace

Peer classify_peer(bool local, const std::optional<std::string>& certificate_name) {
  if (local) return {Peer::Kind::local, "", std::nullopt};
  if (!certificate_name) return {Peer::Kind::unknown, "", std::nullopt};
  if (auto rank = tls::parse_rank_name(*certificate_name)) return {Peer::Kind::rank, *certificate_name, rank};
  return {Peer::Kind::node, *certificate_name, std::nullopt};
}

Status check_local(const Peer& peer, std::string_view what) {
  if (peer.kind == Peer::Kind::local) return {};
  return fail(denied(peer, what));
}

Status check_not_rank(const Peer& peer, std::string_view what) {
  if (peer.kind == Peer::Kind::local || peer.kind == Peer::Kind::node) return {};
  return fail(denied(peer, what));
}

Status check_rank_request(const Peer& peer, std::uint64_t experiment_id, std::string_view what) {
  if (peer.kind == Peer::Kind::local || peer.kind == Peer::Kind::node) return {};
  if (peer.kind == Peer::Kind::rank && peer.rank->experiment_id == experiment_id) return {};
  return fail(denied(peer, fmt::format("{} of experiment {}", what, experiment_id)));
}

}  // namespace volador::master
