#pragma once
// How a Volador process watches its node connections (configure_actor_system
// applies it). One part of the cluster's timings (master/timings.hpp).

#include <chrono>

namespace volador::net {

struct LinkTimings {
  // Each node sends a heartbeat on every connection this often.
  std::chrono::milliseconds heartbeat_interval = std::chrono::milliseconds(500);
  // A peer silent this long (host gone, cable pulled, partition) is dropped.
  // Many heartbeats long, so that a starved machine's late ones still count.
  std::chrono::milliseconds connection_timeout = std::chrono::seconds(10);
  // An accepted connection whose TLS handshake is not done this long after
  // it began is closed, so silent peers cannot pile up.
  std::chrono::milliseconds handshake_timeout = std::chrono::seconds(5);
};

}  // namespace volador::net
