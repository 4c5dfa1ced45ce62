#include "runtime/net/actor_system_setup.hpp"

#include <caf/atom.hpp>
#include <caf/io/middleman.hpp>

#include <algorithm>
#include <thread>

namespace volador::net {

void configure_actor_system(caf::actor_system_config& config) {
  using namespace std::chrono_literals;
  config.load<caf::io::middleman>();
  config.set("middleman.heartbeat-interval", caf::timespan{200ms});
  config.set("middleman.connection-timeout", caf::timespan{2s});
  config.set("scheduler.max-threads", std::max<std::size_t>(2, std::thread::hardware_concurrency()));
  // A control plane: idle threads sleep on a condition variable instead of
  // the work-stealing policy's polling, which cost an idle node 15% of a core.
  config.set("scheduler.policy", caf::atom("sharing"));
  config.add_error_category(caf::atom("volador"), [](std::uint8_t code, caf::atom_value, const caf::message& context) {
    return "volador error " + std::to_string(code) + ": " + caf::to_string(context);
  });
}

}  // namespace volador::net
