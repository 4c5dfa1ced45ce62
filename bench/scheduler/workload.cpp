#include "bench/scheduler/workload.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace volador::bench {
namespace {

// Uniform in [0, 1) from the generator's bits (std::uniform_real_distribution
// is not the same across standard libraries).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

template <class T>
T pick(std::mt19937_64& rng, const std::vector<T>& choices) {
  return choices[static_cast<std::size_t>(unit(rng) * static_cast<double>(choices.size()))];
}

}  // namespace

std::vector<SimExperiment> make_workload(const WorkloadOptions& options) {
  std::mt19937_64 rng(options.seed);
  // Many small experiments and a few very large ones; mostly 1-slot trials,
  // some gangs, a few multi-host (16 slots: two 8-slot agents).
  const std::vector<std::uint32_t> sizes{5, 5, 10, 20, 20, 50, 100, 200, 500, 2000};
  const std::vector<std::uint32_t> gangs{1, 1, 1, 1, 2, 2, 4, 8, 16};
  const std::vector<int> priorities{42, 42, 42, 42, 42, 42, 10, 60, 60};
  const std::vector<double> weights{1, 1, 1, 1, 2};
  const auto burst = static_cast<std::uint32_t>(options.trials * options.burst_fraction);
  std::vector<SimExperiment> experiments;
  std::uint32_t created = 0;
  std::int64_t clock = 0;
  while (created < options.trials) {
    SimExperiment e;
    e.id = experiments.size() + 1;
    if (created >= burst) clock += static_cast<std::int64_t>(-std::log(1 - unit(rng)) * options.mean_arrival_gap_ms);
    e.arrival_ms = clock;
    e.priority = pick(rng, priorities);
    e.weight = pick(rng, weights);
    e.gang = pick(rng, gangs);
    const auto count = std::min(pick(rng, sizes), options.trials - created);
    for (std::uint32_t t = 0; t < count; ++t) {
      // 10 minutes to 3 hours, log-uniform.
      const double minutes = 10 * std::exp(unit(rng) * std::log(18.0));
      e.trial_work_ms.push_back(static_cast<std::int64_t>(minutes * 60'000));
    }
    created += count;
    experiments.push_back(std::move(e));
  }
  return experiments;
}

}  // namespace volador::bench
