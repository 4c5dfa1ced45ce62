#pragma once
// The machine's limits, measured in the same run as the collectives and
// printed as LIMIT lines: memcpy bandwidth (one process, and each of two at
// once, of 256 MiB and of cache-sized 16 MiB buffers) and TCP in a ring of n
// processes, each sending to the next and receiving from the previous at once
// (n = 2: both directions of a pair), with buffers in cache and streamed from
// 256 MiB buffers: on loopback, or with one process per network namespace
// (the veth path between simulated hosts).

#include <vector>

#include "bench/allreduce/rank_hosts.hpp"

namespace volador::bench {

// memcpy and the loopback rings (LIMIT tcp_loopback_ring_<n>procs_*).
// Returns 0 when every measurement ran.
int measure_limits(const std::vector<int>& ring_sizes);
// Only the rings, process r placed by `hosts` (one namespace each):
// LIMIT tcp_xns_ring_<n>procs_{cached,streamed}. Returns 0 when all ran.
int measure_ring_limits(const std::vector<int>& ring_sizes, const RankHosts& hosts);

}  // namespace volador::bench
