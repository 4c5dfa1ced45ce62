#pragma once
// Publishing an actor on a node port and reaching one published elsewhere,
// always over mutual TLS (the actor system must be set up by
// configure_actor_system). The only place that opens node connections.

#include <chrono>
#include <cstdint>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"

namespace volador::net {

// Listens on `listen` (port 0: a free one) and serves `actor` there. The
// bound port; unavailable with the reason when it cannot be bound.
Result<std::uint16_t> publish(caf::actor_system& system, const caf::actor& actor, const Endpoint& listen);

// The actor published at `endpoint`. unavailable with CAF's reason (callers
// name the endpoint) when the node cannot be reached or refuses this node's
// certificate (or this node refuses its certificate).
Result<caf::actor> remote_actor(caf::actor_system& system, const Endpoint& endpoint);

// remote_actor, tried every 200 ms until `deadline` while the node (re)starts
// or the network comes back. `stale` is the handle of a connection that died:
// CAF's cache may hand it out again for a moment, so it does not count (a
// node back from a partition answers with a new handle, though its node id is
// the same). unavailable with the last reason once the deadline passed.
// Blocks the calling thread.
Result<caf::actor> await_remote_actor(caf::actor_system& system, const Endpoint& endpoint,
                                      std::chrono::steady_clock::time_point deadline, const caf::actor& stale = {});

}  // namespace volador::net
