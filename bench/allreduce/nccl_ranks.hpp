#pragma once
// volador-allreduce-bench --backend nccl (built only with NCCL): the NCCL
// backend on forked ranks, one CUDA device each, buffers in device memory.

#include <string>
#include <vector>

#include "bench/allreduce/bench_common.hpp"
#include "runtime/collective/element_type.hpp"

namespace volador::bench {

// Times allreduce through collective::NcclCommunicator on `ranks` forked
// ranks (rank r on device r % devices; rank 0 makes the group id and hands
// it to the others); 0 when every rank succeeded. Refuses, saying why, when
// the machine has no CUDA device or fewer devices than ranks.
[[nodiscard]] int run_nccl_ranks(int ranks, const std::vector<Step>& steps, collective::DType type,
                                 const std::string& impl);

}  // namespace volador::bench
