#pragma once
// The machine's limits, measured in the same run as the collectives:
// memcpy bandwidth (one process, and each of two at once) and loopback TCP
// with both directions busy at once (two processes, each sending and
// receiving), printed as LIMIT lines.

namespace volador::bench {

// Returns 0 when every measurement ran.
int measure_limits();

}  // namespace volador::bench
