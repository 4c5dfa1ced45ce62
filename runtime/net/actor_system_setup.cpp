#include "runtime/net/actor_system_setup.hpp"

#include <caf/atom.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include <algorithm>
#include <thread>

#include "runtime/net/descriptor_limit.hpp"

namespace volador::net {
namespace detail {
void set_handshake_limit(std::chrono::milliseconds limit);  // openssl_interposers.cpp
void set_silence_limit(std::chrono::milliseconds limit);    // openssl_interposers.cpp
}  // namespace detail

void configure_actor_system(caf::actor_system_config& config, const tls::IdentityFiles& identity,
                            const LinkTimings& links) {
  config.load<caf::io::middleman>();
  config.load<caf::openssl::manager>();
  detail::set_handshake_limit(links.handshake_timeout);
  detail::set_silence_limit(links.connection_timeout);
  raise_descriptor_limit();  // a master at the common 1,024 spins and locks clients out
  // With these set CAF requires a certificate chain to the CA from both ends
  // and refuses anonymous ciphers (caf/openssl/session.cpp).
  config.openssl_certificate = identity.certificate.string();
  config.openssl_key = identity.private_key.string();
  config.openssl_cafile = identity.ca_certificate.string();
  // Automatic connections would open plain (unauthenticated) BASP
  // connections between nodes that learn of each other: messages to a third
  // node are routed through the node that introduced it instead.
  config.set("middleman.enable-automatic-connections", false);
  config.set("middleman.heartbeat-interval", caf::timespan{links.heartbeat_interval});
  // Silent links are cut by openssl_interposers.cpp (session_clocks.hpp): CAF
  // 0.17's own check cut links it had dialled before their peers answered.
  config.set("middleman.connection-timeout", caf::timespan{0});
  config.set("scheduler.max-threads", std::max<std::size_t>(2, std::thread::hardware_concurrency()));
  // A control plane: idle threads sleep on a condition variable instead of
  // the work-stealing policy's polling, which cost an idle node 15% of a core.
  config.set("scheduler.policy", caf::atom("sharing"));
  config.add_error_category(caf::atom("volador"), [](std::uint8_t code, caf::atom_value, const caf::message& context) {
    return "volador error " + std::to_string(code) + ": " + caf::to_string(context);
  });
}

}  // namespace volador::net
