#pragma once
// How long the parts of a cluster wait for each other. One value, given to
// each process by its entry point (`volador-node --timings FILE`, read by
// runtime/node/timings_file.hpp; an agent hands its own to its rank workers):
// tests shorten it instead of sleeping through the defaults. The nodes of one
// cluster should be given the same timings.

#include <chrono>

#include "runtime/net/link_timings.hpp"

namespace volador::master {

struct Timings {
  // Every process: heartbeats, when a silent peer is dropped, the TLS handshake limit.
  net::LinkTimings links;
  // An agent or a rank worker starting up waits this long for the master to answer.
  std::chrono::milliseconds connect_patience = std::chrono::seconds(30);
  // The client (`volador`) tries this long to reach the master before it says it cannot.
  std::chrono::milliseconds client_connect_patience = std::chrono::seconds(3);
  // Agents keep their rank workers, and the workers keep their trial's state,
  // this long without a master; then they give up (the workers are killed).
  std::chrono::milliseconds master_outage_patience = std::chrono::seconds(60);
  // A restarted master waits this long for a running trial's agents and
  // ranks to report back, then restarts the trial from its latest checkpoint.
  std::chrono::milliseconds reattach_grace = std::chrono::seconds(20);
  // An agent answers a launch request within this, or the run restarts.
  std::chrono::milliseconds launch_timeout = std::chrono::seconds(120);
  // A workload is bounded by the trial's own code; a rank's death is seen
  // through its agent, so this only guards against a hung, connected worker.
  std::chrono::milliseconds workload_timeout = std::chrono::hours(24);
  // An agent whose registration the master has not answered within this asks again.
  std::chrono::milliseconds register_timeout = std::chrono::seconds(10);
  // An agent that cannot reach its master for this long quits.
  std::chrono::milliseconds reconnect_patience = std::chrono::minutes(5);
  // A rank waits this long for its trial's answer to its hello, which comes
  // once every rank reported in (slow on a busy host); a lost master ends the
  // wait at once, not this.
  std::chrono::milliseconds hello_timeout = std::chrono::minutes(10);
  // An agent waits this long for its trial's answer to a message of a
  // worker's output (given once the lines are journaled) before it counts the
  // message as lost and ships the next; a lost master frees its place at once.
  std::chrono::milliseconds log_timeout = std::chrono::seconds(60);
  // An agent keeps a warm rank worker idle this long for the next trial of
  // its experiment on its slot, then ends it.
  std::chrono::milliseconds warm_worker_idle = std::chrono::seconds(5);
  // A rank worker's identity, issued by the master for each launch, is valid
  // this long: a run (or a warm worker) outliving it cannot reconnect after a
  // drop of its link, and restarts from its checkpoint with a fresh identity.
  std::chrono::milliseconds rank_identity_validity = std::chrono::hours(7 * 24);

  // The pool holds a live run's agents for the reattach grace; asking it
  // gets an answer a little after that.
  [[nodiscard]] std::chrono::milliseconds adopt_timeout() const { return reattach_grace + std::chrono::seconds(5); }
  // A restarted trial answers a rank's rejoin once its ranks and agents are
  // back, within the reattach grace.
  [[nodiscard]] std::chrono::milliseconds rejoin_timeout() const { return reattach_grace + std::chrono::seconds(10); }
};

}  // namespace volador::master
