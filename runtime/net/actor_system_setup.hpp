#pragma once
// The one place that configures CAF for Volador processes: the network
// module with mutual TLS (CAF's OpenSSL module, certificates from the
// cluster CA: a peer without one cannot connect), heartbeats that reveal a
// hung or unreachable peer within seconds, a bounded scheduler, and the
// error category of volador::Error.

#include <caf/actor_system_config.hpp>

#include "runtime/net/link_timings.hpp"
#include "runtime/tls/identity_files.hpp"

namespace volador::net {

// Loads the middleman and the OpenSSL module, presenting `identity` and
// trusting only its CA, with `links`' heartbeats, connection timeout and
// handshake limit (the connection timeout and the handshake limit are the
// process's: the last call sets them), and raises the process's descriptor limit (descriptor_limit.hpp).
// Every connection goes through net/remote.hpp.
void configure_actor_system(caf::actor_system_config& config, const tls::IdentityFiles& identity,
                            const LinkTimings& links = {});

}  // namespace volador::net
