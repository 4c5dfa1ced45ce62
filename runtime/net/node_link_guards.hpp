#pragma once
// The guards that openssl_interposers.cpp puts on every TLS session of the
// process (a handshake deadline running to the peer's first BASP frame, a
// cap on BASP frame sizes) are for node links, which speak CAF's BASP. A
// process that also serves another protocol over TLS (the master's HTTPS
// server) exempts that server's context, so its sessions are only given the
// error-queue clearing.

#include <openssl/types.h>

namespace volador::net {

// Sessions made from `context` from now on are not node links: no handshake
// deadline, no frame guard.
void exempt_from_node_link_guards(SSL_CTX* context);

}  // namespace volador::net
