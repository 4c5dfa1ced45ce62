#include "actors/master_link.hpp"

#include <caf/io/all.hpp>

#include "runtime/net/actor_system_setup.hpp"
#include "runtime/net/remote.hpp"

namespace volador::actors {

MasterLink::MasterLink(const net::Endpoint& master, const std::filesystem::path& tls_dir, const master::Timings& timings)
    : endpoint_(master), timings_(timings) {
  net::configure_actor_system(config_, tls::IdentityFiles::in(tls_dir), timings.links);
  system_ = std::make_unique<caf::actor_system>(config_);
}

MasterLink::~MasterLink() {
  if (rank_actor_) caf::anon_send_exit(rank_actor_, caf::exit_reason::user_shutdown);  // the system waits for it
  rank_actor_ = nullptr;
  gateway_ = nullptr;
  system_.reset();
}

Result<std::unique_ptr<MasterLink>> MasterLink::connect(const net::Endpoint& master, const std::filesystem::path& tls_dir,
                                                       const master::Timings& timings) {
  auto link = std::unique_ptr<MasterLink>(new MasterLink(master, tls_dir, timings));
  auto gateway = net::await_master(*link->system_, master, std::chrono::steady_clock::now() + timings.connect_patience);
  if (!gateway) return fail(gateway.error());
  link->gateway_ = std::move(*gateway);
  return link;
}

Result<caf::actor> MasterLink::reconnect(std::chrono::steady_clock::time_point deadline) {
  auto gateway = net::await_master(*system_, endpoint_, deadline, gateway_);
  if (!gateway) return fail(gateway.error());
  gateway_ = *gateway;
  return gateway;
}

}  // namespace volador::actors
