#pragma once
// How long the parts of a cluster wait for each other across a master
// restart, so running trials survive it (see README, "Guarantees").

#include <chrono>

#include "master/timings.hpp"

namespace volador::actors {

// Agents keep their rank workers, and the workers keep their trial's state,
// this long without a master; then they give up (the workers are killed).
inline constexpr auto kMasterOutagePatience = std::chrono::seconds(60);

// A restarted master waits this long for a running trial's agents and ranks
// to report back, then restarts the trial from its latest checkpoint.
inline constexpr auto kReattachGrace = master::Timings{}.reattach_grace;

}  // namespace volador::actors
