#pragma once
// A deterministic synthetic workload for the scheduler benchmark: a burst of
// experiments at time 0 that queues far more trials than the cluster holds,
// then experiments arriving at random, of mixed sizes, gangs, priorities and
// weights. The same seed gives the same workload.

#include <cstdint>
#include <vector>

namespace volador::bench {

struct WorkloadOptions {
  std::uint64_t seed = 1;
  std::uint32_t trials = 30'000;         // in all experiments together
  double burst_fraction = 0.5;           // of the trials, submitted at time 0
  std::int64_t mean_arrival_gap_ms = 120'000;  // between later experiments
};

struct SimExperiment {
  std::uint64_t id = 0;
  std::int64_t arrival_ms = 0;
  int priority = 42;
  double weight = 1.0;
  std::uint32_t gang = 1;                 // slots per trial
  std::vector<std::int64_t> trial_work_ms;  // each trial's training time
};

std::vector<SimExperiment> make_workload(const WorkloadOptions& options);

}  // namespace volador::bench
