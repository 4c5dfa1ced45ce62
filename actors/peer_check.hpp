#pragma once
// Which peer sent the message a master actor is handling, for the checks of
// master/peer_authorization.hpp.

#include <optional>

#include <spdlog/spdlog.h>

#include "master/peer_authorization.hpp"
#include "runtime/net/peer_name.hpp"

namespace volador::actors {

// The peer behind the message `self` is handling now: its own process's
// actors, or the certificate its node's connection presented. Ask before
// make_response_promise, which takes the message's sender away.
template <class Self>
master::Peer current_peer(Self self) {
  const auto& sender = self->current_sender();
  if (!sender) return master::classify_peer(false, std::nullopt);
  if (sender->node() == self->node()) return master::classify_peer(true, std::nullopt);
  return master::classify_peer(false, net::peer_name(sender->node()));
}

// For a message without a reply: whether `allowed` lets it through; a refusal is logged.
inline bool permitted(const Status& allowed) {
  if (!allowed) spdlog::warn("refused a message: {}", allowed.error().message);
  return allowed.has_value();
}

}  // namespace volador::actors
