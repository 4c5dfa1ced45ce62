#pragma once
// The machine's limits, measured in the same run as the collectives and
// printed as LIMIT lines: memcpy bandwidth (one process, and each of two at
// once, of 256 MiB and of cache-sized 16 MiB buffers) and loopback TCP in a ring of n processes, each sending to the next
// and receiving from the previous at once (n = 2: both directions of a
// pair), with buffers in cache and streamed from 256 MiB buffers.

#include <vector>

namespace volador::bench {

// Returns 0 when every measurement ran.
int measure_limits(const std::vector<int>& ring_sizes);

}  // namespace volador::bench
