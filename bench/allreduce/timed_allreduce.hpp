#pragma once
// The timed loop of volador-allreduce-bench, the same for every backend: per
// step, warm-up calls, a barrier, the timed calls, a barrier, and rank 0
// reports the slowest rank's mean time per call.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "runtime/collective/communicator.hpp"

namespace volador::bench {

// Times the in-place sum of the first step.bytes of `buffer` (host or device
// memory, as `comm` needs; as large as the last step) for every step; 0 when
// every call succeeded, else 1 after saying why on stderr.
[[nodiscard]] int time_allreduce_steps(collective::Communicator& comm, std::span<std::byte> buffer,
                                       const std::vector<Step>& steps, collective::DType type, RankTimes& times,
                                       const std::string& impl);

}  // namespace volador::bench
