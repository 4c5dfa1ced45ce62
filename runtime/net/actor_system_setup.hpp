#pragma once
// The one place that configures CAF for Volador processes: the network
// module, heartbeats that reveal a hung peer within about a second, a
// bounded scheduler, and the error category of volador::Error.

#include <caf/actor_system_config.hpp>

namespace volador::net {

// Loads the middleman and applies Volador's settings to `config`.
void configure_actor_system(caf::actor_system_config& config);

}  // namespace volador::net
