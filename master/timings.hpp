#pragma once
// How long the parts of a cluster wait for each other. One value, passed in:
// tests shorten it instead of sleeping through the defaults.

#include <chrono>

namespace volador::master {

struct Timings {
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

  // The pool holds a live run's agents for the reattach grace; asking it
  // gets an answer a little after that.
  [[nodiscard]] std::chrono::milliseconds adopt_timeout() const { return reattach_grace + std::chrono::seconds(5); }
};

}  // namespace volador::master
