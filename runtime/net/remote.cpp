#include "runtime/net/remote.hpp"

#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

#include <thread>

namespace volador::net {
namespace {

// Whether two handles are one object. Not ==, which takes a new proxy of the
// same node and actor id (a node back from a partition) for the stale one.
bool same_object(const caf::actor& a, const caf::actor& b) {
  return caf::actor_cast<caf::abstract_actor*>(a) == caf::actor_cast<caf::abstract_actor*>(b);
}

// The actor published at `endpoint`; unavailable with CAF's reason.
Result<caf::actor> remote_actor(caf::actor_system& system, const Endpoint& endpoint) {
  auto actor = caf::openssl::remote_actor<caf::actor>(system, endpoint.host, endpoint.port);
  if (!actor) return fail(Error::unavailable(system.render(actor.error())));
  return *actor;
}

}  // namespace

Result<std::uint16_t> publish(caf::actor_system& system, const caf::actor& actor, const Endpoint& listen) {
  // reuse_addr: a restarted master gets its port back at once.
  auto port = caf::openssl::publish(actor, listen.port, listen.host.c_str(), true);
  if (!port) return fail(Error::unavailable("cannot listen on " + listen.to_string() + ": " + system.render(port.error())));
  return *port;
}

Result<caf::actor> await_master(caf::actor_system& system, const Endpoint& master,
                                std::chrono::steady_clock::time_point deadline, const caf::actor& stale) {
  for (;;) {
    auto actor = remote_actor(system, master);
    if (actor && !same_object(*actor, stale)) return actor;
    if (std::chrono::steady_clock::now() >= deadline)
      return fail(Error::unavailable("cannot reach the master at " + master.to_string() + ": " +
                                     (actor ? "it did not come back" : actor.error().message)));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace volador::net
