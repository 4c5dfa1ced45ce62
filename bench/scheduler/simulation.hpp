#pragma once
// A discrete-event simulation of one pool under the scheduler: experiments
// arrive (workload.hpp), their trials queue, run for their work, and leave
// when done or when preempted (a checkpoint later, then they queue again
// with the work left). The policy's decisions are timed on the wall clock
// and in the CPU time of the thread (which a loaded machine does not
// inflate by keeping the thread waiting for a core); everything else runs
// on simulated time, so the figures other than the timings are the same on
// every machine.

#include <cstdint>
#include <vector>

#include "bench/scheduler/workload.hpp"

namespace volador::bench {

enum class PolicyMode {
  shares,  // the policy: each experiment's priority and weight, preemption on
  fifo,    // the peer: every trial in one queue in submission order, no preemption
};

struct SimOptions {
  PolicyMode mode = PolicyMode::shares;
  std::uint32_t agents = 1000;
  std::uint32_t slots_per_agent = 8;
  std::int64_t min_run_ms = 10 * 60'000;  // the pool's minimum run before preemption
  std::int64_t checkpoint_ms = 30'000;     // from the ask to leave to the slots' release
  std::uint32_t target_pending = 10'000;   // decisions with at least this many trials queued are timed apart
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct SimResult {
  std::uint64_t decisions = 0, grants = 0, preemptions = 0;
  std::uint32_t max_pending = 0;
  double makespan_hours = 0;
  // Used slots over the capacity, averaged over the time trials waited.
  double utilisation = 0;
  // Slots held by the wrong experiments: sum |held - ideal| / (2 capacity),
  // averaged over the time trials waited (ideal_shares of the pool).
  double fairness_error = 0;
  Percentiles wait_minutes;              // from each request to its grant
  Percentiles wait_minutes_priority_10;  // the most important experiments'
  Percentiles decision_us;               // every decision
  Percentiles decision_us_at_target;     // decisions with >= target_pending queued
  Percentiles decision_cpu_us;           // the same in the thread's CPU time
  Percentiles decision_cpu_us_at_target;
  std::uint64_t decisions_at_target = 0;
};

SimResult simulate(const std::vector<SimExperiment>& workload, const SimOptions& options);

}  // namespace volador::bench
