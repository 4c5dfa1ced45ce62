#include "runtime/net/remote.hpp"

#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

#include <algorithm>
#include <thread>

namespace volador::net {
namespace {

// The actor published at `endpoint`; unavailable with CAF's reason.
Result<caf::actor> remote_actor(caf::actor_system& system, const Endpoint& endpoint) {
  auto actor = caf::openssl::remote_actor<caf::actor>(system, endpoint.host, endpoint.port);
  if (!actor) return fail(Error::unavailable(system.render(actor.error())));
  return *actor;
}

// The wait before the next try at the master after waiting `delay`: twice as long, at most 1 s.
std::chrono::milliseconds next_retry_delay(std::chrono::milliseconds delay) {
  constexpr auto kLongest = std::chrono::milliseconds(1'000);
  return std::min(delay * 2, kLongest);
}

}  // namespace

bool same_object(const caf::actor& a, const caf::actor& b) {
  return caf::actor_cast<caf::abstract_actor*>(a) == caf::actor_cast<caf::abstract_actor*>(b);
}

Result<std::uint16_t> publish(caf::actor_system& system, const caf::actor& actor, const Endpoint& listen) {
  // reuse_addr: a restarted master gets its port back at once.
  auto port = caf::openssl::publish(actor, listen.port, listen.host.c_str(), true);
  if (!port) return fail(Error::unavailable("cannot listen on " + listen.to_string() + ": " + system.render(port.error())));
  return *port;
}

Result<caf::actor> await_master(caf::actor_system& system, const Endpoint& master,
                                std::chrono::steady_clock::time_point deadline, const caf::actor& stale,
                                const std::function<bool()>& stopped) {
  auto delay = std::chrono::milliseconds(100);
  for (;;) {
    if (stopped && stopped()) return fail(Error::unavailable("stopped while waiting for the master at " + master.to_string()));
    auto actor = remote_actor(system, master);
    if (actor && !same_object(*actor, stale)) return actor;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return fail(Error::unavailable("cannot reach the master at " + master.to_string() + ": " +
                                     (actor ? "it did not come back" : actor.error().message)));
    // The last try falls on the deadline.
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(delay, deadline - now));
    delay = next_retry_delay(delay);
  }
}

}  // namespace volador::net
