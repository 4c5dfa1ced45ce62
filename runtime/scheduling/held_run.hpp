#pragma once
// Rank workers that outlived a master restart, as the resource pool sees
// them: held for their trial run until the restarted trial claims them.
// Free of actors, so the decision is testable on its own.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "runtime/scheduling/placement.hpp"

namespace volador::scheduling {

// Workers of one trial run reported by the agents that registered so far.
struct HeldRun {
  std::uint32_t run_id = 0;
  std::vector<std::string> agent_ids;  // in the order they registered
};

// A restarted trial's claim on the run it had before the restart.
struct RunClaim {
  std::uint32_t run_id = 0;
  std::vector<std::string> agent_ids;  // the run's agents, in rank order
  std::uint32_t slots = 0;             // all its ranks
};

enum class ClaimVerdict {
  wait,    // some of the run's agents have not registered yet
  grant,   // every rank of the run is held: adopt it
  refuse,  // the run did not survive whole: restart the trial
};

// Judges `claim` against what is held for the trial (`held`, null if
// nothing), its allocation (`allocation`, null if none) and the agents
// registered so far.
ClaimVerdict judge_claim(const RunClaim& claim, const HeldRun* held, const Allocation* allocation,
                         const std::set<std::string>& registered);

}  // namespace volador::scheduling
