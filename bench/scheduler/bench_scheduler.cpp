// bench_scheduler: the resource pools' policy (runtime/scheduling) on a
// deterministic simulated cluster: utilisation, fairness error against the
// ideal shares, wait-time percentiles and the policy's wall-clock time per
// decision, for the policy and for its peer (one FIFO queue with backfill,
// no preemption) on the same workload. A table and one `RESULT {json}` line
// per row.
//   bench_scheduler [--agents 1000] [--slots-per-agent 8] [--trials 30000] [--seed 1]
//                   [--min-run-minutes 10] [--modes shares,fifo]
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/scheduler/simulation.hpp"
#include "bench/scheduler/workload.hpp"

using namespace volador::bench;

namespace {

struct Options {
  SimOptions sim;
  WorkloadOptions workload;
  std::vector<PolicyMode> modes{PolicyMode::shares, PolicyMode::fifo};
};

const char* name_of(PolicyMode mode) { return mode == PolicyMode::shares ? "shares" : "fifo"; }

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--agents") o.sim.agents = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--slots-per-agent") o.sim.slots_per_agent = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--trials") o.workload.trials = static_cast<std::uint32_t>(std::stoul(value));
    else if (flag == "--seed") o.workload.seed = std::stoull(value);
    else if (flag == "--min-run-minutes") o.sim.min_run_ms = std::stoll(value) * 60'000;
    else if (flag == "--modes") {
      o.modes.clear();
      if (value.find("shares") != std::string::npos) o.modes.push_back(PolicyMode::shares);
      if (value.find("fifo") != std::string::npos) o.modes.push_back(PolicyMode::fifo);
    } else {
      std::cerr << "bench_scheduler: unknown flag " << flag << "\n";
      return false;
    }
  }
  if (argc % 2 == 0) {
    std::cerr << "bench_scheduler: " << argv[argc - 1] << " needs a value\n";
    return false;
  }
  return true;
}

nlohmann::json to_json(const Percentiles& p) { return {{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}}; }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  const auto workload = make_workload(o.workload);
  std::printf("%u agents x %u slots, %u trials in %zu experiments (seed %llu), min run %lld min\n\n", o.sim.agents,
              o.sim.slots_per_agent, o.workload.trials, workload.size(),
              static_cast<unsigned long long>(o.workload.seed), static_cast<long long>(o.sim.min_run_ms / 60'000));
  std::printf("%-7s %6s %9s %8s %11s %11s %11s %8s %10s %10s %10s %9s %11s %11s\n", "policy", "util", "fairness",
              "preempt", "wait p50", "wait p99", "p10 p99", "hours", "dec p50", "dec p99", "dec max", "at 10k", "at 10k p99",
              "cpu p99");
  for (auto mode : o.modes) {
    o.sim.mode = mode;
    const auto r = simulate(workload, o.sim);
    std::printf("%-7s %5.1f%% %8.2f%% %8llu %9.1fmin %9.1fmin %9.1fmin %8.1f %8.1fus %8.1fus %8.1fus %9llu %9.1fus %9.1fus\n",
                name_of(mode), 100 * r.utilisation, 100 * r.fairness_error,
                static_cast<unsigned long long>(r.preemptions), r.wait_minutes.p50, r.wait_minutes.p99,
                r.wait_minutes_priority_10.p99, r.makespan_hours, r.decision_us.p50, r.decision_us.p99,
                r.decision_us.max, static_cast<unsigned long long>(r.decisions_at_target), r.decision_us_at_target.p99,
                r.decision_cpu_us_at_target.p99);
    std::cout << "RESULT "
              << nlohmann::json{{"bench", "scheduler"},
                                {"policy", name_of(mode)},
                                {"agents", o.sim.agents},
                                {"slots_per_agent", o.sim.slots_per_agent},
                                {"trials", o.workload.trials},
                                {"experiments", workload.size()},
                                {"seed", o.workload.seed},
                                {"min_run_minutes", o.sim.min_run_ms / 60'000},
                                {"utilisation", r.utilisation},
                                {"fairness_error", r.fairness_error},
                                {"preemptions", r.preemptions},
                                {"grants", r.grants},
                                {"decisions", r.decisions},
                                {"max_pending", r.max_pending},
                                {"makespan_hours", r.makespan_hours},
                                {"wait_minutes", to_json(r.wait_minutes)},
                                {"wait_minutes_priority_10", to_json(r.wait_minutes_priority_10)},
                                {"decision_us", to_json(r.decision_us)},
                                {"decisions_at_target", r.decisions_at_target},
                                {"target_pending", o.sim.target_pending},
                                {"decision_us_at_target", to_json(r.decision_us_at_target)},
                                {"decision_cpu_us", to_json(r.decision_cpu_us)},
                                {"decision_cpu_us_at_target", to_json(r.decision_cpu_us_at_target)}}
              << "\n";
  }
  return 0;
}
