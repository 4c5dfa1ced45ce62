#pragma once
// The certificate behind a message: which identity the connection of the
// node a message came from presented (peer_identities.hpp).

#include <optional>
#include <string>

#include <caf/node_id.hpp>

namespace volador::net {

// The subject common name of the certificate that node `node`'s connection
// to this process presented ("admin", an agent's name, "rank:…"); nullopt
// when no live connection this process accepted speaks for it (this
// process's own node, one that dialled out, or one already gone).
std::optional<std::string> peer_name(const caf::node_id& node);

}  // namespace volador::net
