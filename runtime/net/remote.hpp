#pragma once
// Publishing an actor on a node port and reaching one published elsewhere,
// always over mutual TLS (the actor system must be set up by
// configure_actor_system). The only place that opens node connections.

#include <chrono>
#include <functional>
#include <cstdint>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"

namespace volador::net {

// Listens on `listen` (port 0: a free one) and serves `actor` there. The
// bound port; unavailable with the reason when it cannot be bound.
Result<std::uint16_t> publish(caf::actor_system& system, const caf::actor& actor, const Endpoint& listen);

// Whether two handles are one object: the same connection's proxy of a
// remote actor. Not ==, which takes a new proxy of the same node and actor id
// (the same master reached again after a stall or a partition) for the old one.
bool same_object(const caf::actor& a, const caf::actor& b);

// The master's gateway published at `master`, tried until `deadline` while
// the master (re)starts, wakes from a stall or the network comes back: again
// after 100 ms, then after twice as long each time, up to 1 s, the last try at
// the deadline. `stale` is the handle of a connection that died: CAF's cache
// may hand it out again for a moment, so it does not count (the same master
// reached again, after a stall or a partition, answers with a new handle,
// though its node id is the same). Once the deadline has passed: unavailable,
// "cannot reach the master at HOST:PORT: " and CAF's last reason
// (unreachable, or one side refused the other's certificate). Blocks the
// calling thread; `stopped` (when given) is asked before each try, and true
// ends the wait at once (unavailable, "stopped ..."), so a caller that is shutting down does
// not hold its actor system until the deadline.
Result<caf::actor> await_master(caf::actor_system& system, const Endpoint& master,
                                std::chrono::steady_clock::time_point deadline, const caf::actor& stale = {},
                                const std::function<bool()>& stopped = {});

}  // namespace volador::net
