#pragma once
// Sets up a group's connections: one authenticated socket per pair of ranks
// (lower ranks connect to higher ones, each checks the secret).

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/collective/tcp_listener.hpp"

namespace volador::collective {

// Returns sockets indexed by peer rank (the own entry is empty). `endpoints`
// holds every rank's listener endpoint, `listener` is this rank's. Fails
// (unavailable) when a peer is missing after `timeout`, or (invalid_argument)
// when a peer refuses us; connections with a wrong secret are refused and
// closed while waiting for the right ones.
[[nodiscard]] Result<std::vector<UniqueFd>> connect_mesh(TcpListener& listener, std::span<const Endpoint> endpoints,
                                                   int rank, std::string_view secret,
                                                   std::chrono::milliseconds timeout);

}  // namespace volador::collective
