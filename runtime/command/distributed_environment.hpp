#pragma once
// The environment each rank of a multi-slot command trial gets, so that
// torch.distributed scripts (init_method="env://") and TI-ONE scripts run
// unchanged. For rank r of N:
//   MASTER_ADDR       rank 0's host            MASTER_PORT  the chosen port
//   RANK              r                        WORLD_SIZE   N
//   LOCAL_RANK        r's index among the ranks on its node (in rank order)
//   LOCAL_WORLD_SIZE  the number of ranks on r's node
//   NODE_NUM          the number of nodes
//   INDEX             r's node index: nodes numbered 0.. in the order their
//                     first rank appears, so rank 0's node is 0 (the chief)
//   GPU_NUM_PER_NODE  the number of ranks on r's node (= LOCAL_WORLD_SIZE;
//                     TI-ONE assumes every node has as many)
//   CHIEF_IP          rank 0's host (= MASTER_ADDR)

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/command/environment.hpp"

namespace volador::command {

struct RankPlacement {
  std::string node;  // the node (agent) the rank runs on; ranks on one node share it
  std::string host;  // the address other ranks reach this rank's host at
};

struct RankLayout {
  std::vector<RankPlacement> ranks;  // index = rank
  std::uint16_t master_port = 0;     // rank 0's chosen port, > 0
};

// The variables above for `rank`. Errors (invalid_argument): no ranks, rank
// out of range, port 0, or an empty node or host.
[[nodiscard]] Result<EnvironmentVariables> distributed_environment(const RankLayout& layout,
                                                                   std::size_t rank);

}  // namespace volador::command
