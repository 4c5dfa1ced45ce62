#pragma once
// The defaults of master::Timings that the agent, the pool and the rank
// worker use across a master restart, so running trials survive it (see
// README, "Guarantees"; the meaning of each is in master/timings.hpp).

#include "master/timings.hpp"

namespace volador::actors {

inline constexpr auto kMasterOutagePatience = master::Timings{}.master_outage_patience;
inline constexpr auto kReattachGrace = master::Timings{}.reattach_grace;

}  // namespace volador::actors
