#pragma once
// A rank worker's connection to the master: its actor system (mutual TLS with
// the worker's identity) and the master's gateway as last reached. One link
// serves every trial a warm worker runs (RankSession::join), so a trial after
// the first starts without a new actor system or TLS handshake.

#include <chrono>
#include <filesystem>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "master/timings.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"

namespace volador::actors {

class MasterLink {
 public:
  // Starts an actor system presenting the identity in `tls_dir`
  // (tls/identity_files.hpp) and reaches the master's gateway at `master`
  // within the connect patience of `timings`. Error unavailable with the reason.
  static Result<std::unique_ptr<MasterLink>> connect(const net::Endpoint& master, const std::filesystem::path& tls_dir,
                                                     const master::Timings& timings);

  [[nodiscard]] caf::actor_system& system() { return *system_; }
  [[nodiscard]] const master::Timings& timings() const { return timings_; }
  // The master's gateway as last reached.
  [[nodiscard]] const caf::actor& gateway() const { return gateway_; }
  // The actor that speaks for this worker's ranks, kept for one trial after
  // another (RankSession::join makes it for the first); ended with the link.
  [[nodiscard]] caf::actor& rank_actor() { return rank_actor_; }

  // Reaches the master again (restarted, or the same once a dropped link is
  // back), never through the gateway last reached, until `deadline`; the new
  // gateway becomes gateway(). Error unavailable with CAF's last reason.
  Result<caf::actor> reconnect(std::chrono::steady_clock::time_point deadline);

  ~MasterLink();
  MasterLink(const MasterLink&) = delete;
  MasterLink& operator=(const MasterLink&) = delete;

 private:
  MasterLink(const net::Endpoint& master, const std::filesystem::path& tls_dir, const master::Timings& timings);
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  net::Endpoint endpoint_;
  master::Timings timings_;
  caf::actor gateway_;
  caf::actor rank_actor_;
};

}  // namespace volador::actors
