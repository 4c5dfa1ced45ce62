#pragma once
// An agent as it joins the scheduler.

#include <map>
#include <string>
#include <vector>

#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

// Its pool (`--pool`, the default pool when unnamed), its labels (`--label
// key=value`), one kind per slot ("cpu", "gpu:<model>") and whether it runs
// container images (it has a container runtime: trials that need images may
// go there).
struct AgentSpec {
  std::string agent_id;
  std::string pool = kDefaultPool;
  std::map<std::string, std::string> labels;
  std::vector<std::string> slot_kinds;
  bool runs_images = false;
};

}  // namespace volador::scheduling
