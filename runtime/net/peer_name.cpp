#include "runtime/net/peer_name.hpp"

#include <caf/binary_serializer.hpp>

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/net/peer_identities.hpp"

namespace volador::net {

std::optional<std::string> peer_name(const caf::node_id& node) {
  // The bytes a client handshake carries: CAF's serialization of the node id.
  std::vector<char> bytes;
  caf::binary_serializer sink(static_cast<caf::execution_unit*>(nullptr), bytes);
  if (sink(const_cast<caf::node_id&>(node))) return std::nullopt;
  return peer_identities().name_of(std::as_bytes(std::span(bytes)));
}

}  // namespace volador::net
