#include "runtime/net/peer_identities.hpp"

#include <algorithm>

#include "runtime/tls/rank_name.hpp"

namespace volador::net {

bool PeerIdentities::admit(const void* session, const std::string& name, const BaspFrame& frame) {
  const auto head = frame.payload_head;
  if (frame.operation == basp::kClientHandshake) {
    if (frame.payload_len > head.size()) return false;  // no node id is that long
    return bind(session, name, NodeBytes(head.begin(), head.end()));
  }
  if (!tls::parse_rank_name(name)) return true;
  if (frame.operation != basp::kRoutedMessage && frame.operation != basp::kMonitorMessage &&
      frame.operation != basp::kDownMessage)
    return true;
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(session);
  if (it == sessions_.end() || it->second.node.empty()) return false;
  const auto& own = it->second.node;
  return head.size() >= own.size() && std::equal(own.begin(), own.end(), head.begin());
}

namespace {

// Whether connections presenting `a` and `b` may speak for one node: the
// same identity, or ranks of one experiment (the master authorizes them
// alike). Sandboxed ranks on one host can share a node id: CAF makes it of
// the host and the process id, which each PID namespace starts again.
bool may_share_node(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const auto rank_a = tls::parse_rank_name(a), rank_b = tls::parse_rank_name(b);
  return rank_a && rank_b && rank_a->experiment_id == rank_b->experiment_id;
}

}  // namespace

bool PeerIdentities::bind(const void* session, const std::string& name, const NodeBytes& node) {
  std::lock_guard lock(mutex_);
  for (const auto& [other, bound] : sessions_)
    if (other != session && bound.node == node && !may_share_node(bound.name, name)) return false;
  auto [it, fresh] = sessions_.try_emplace(session, Session{name, node});
  return fresh || it->second.node == node;
}

void PeerIdentities::forget(const void* session) {
  std::lock_guard lock(mutex_);
  sessions_.erase(session);
}

std::optional<std::string> PeerIdentities::name_of(std::span<const std::byte> node) const {
  std::lock_guard lock(mutex_);
  for (const auto& [session, bound] : sessions_)
    if (std::ranges::equal(bound.node, node)) return bound.name;
  return std::nullopt;
}

PeerIdentities& peer_identities() {
  static PeerIdentities identities;
  return identities;
}

}  // namespace volador::net
