#pragma once
// The parameters of one pool's scheduler (the cluster config's scheduler
// section for the pool).

#include <cstdint>

namespace volador::scheduling {

struct PoolPolicy {
  // Whether a waiting trial of a more important experiment, or of one below
  // its fair share, may have running trials of others asked to checkpoint
  // and release their slots. Off: running trials always run to their end.
  bool preemption = true;
  // A trial is never chosen for preemption before it has run this long on
  // its current slots (since its last grant), so nothing thrashes: each
  // preemption costs a checkpoint and a restart.
  std::int64_t min_run_before_preemption_ms = 60'000;
  bool operator==(const PoolPolicy&) const = default;
};

}  // namespace volador::scheduling
