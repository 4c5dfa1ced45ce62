#pragma once
// Whether the agents of a pool allow an experiment's rank limits
// (resources.memory_limit, resources.max_processes): checked when the
// experiment is submitted, against what each agent registered.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::master {

// invalid_argument naming the field, the pool and the most its agents allow,
// when a rank asking for `memory_limit` bytes or `max_processes` (0: the
// agent's own) could run on none of `agents` (those of `pool`). An agent
// that runs its ranks without limits (0s) can hold a rank to none: a limit
// asked of a pool of only such agents is refused saying so. A pool without
// agents refuses nothing: its trials wait for agents to join.
Status check_rank_limits(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                         std::uint64_t memory_limit, std::uint32_t max_processes);

}  // namespace volador::master
