#pragma once
// Which of this machine's addresses its peers can reach: the one the kernel
// would use to send to a given host (a rank's data-plane listener binds it,
// so ranks on other hosts reach it the way this host reaches the master).

#include <string>

#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"

namespace volador::net {

// The numeric local address of the route to `peer` (no packet is sent).
// Error unavailable naming the peer when it cannot be resolved or routed.
Result<std::string> local_address_towards(const Endpoint& peer);

}  // namespace volador::net
