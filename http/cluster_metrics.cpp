#include "http/cluster_metrics.hpp"

#include <map>

#include <fmt/format.h>

#include "runtime/core/states.hpp"

namespace volador::http {
namespace {

constexpr RunState kStates[] = {RunState::active, RunState::paused, RunState::completed, RunState::canceled,
                                RunState::error};

MetricFamily by_state(std::string name, std::string help, const std::map<RunState, double>& counts) {
  MetricFamily family{std::move(name), std::move(help), "gauge", {}};
  for (auto state : kStates) {
    auto it = counts.find(state);
    family.samples.push_back({{{"state", std::string(to_string(state))}}, it == counts.end() ? 0 : it->second, ""});
  }
  return family;
}

}  // namespace

Result<std::vector<MetricFamily>> run_state_families(const storage::Journal& journal) {
  auto experiments = journal.experiments();
  if (!experiments) return fail(experiments.error());
  std::map<RunState, double> experiment_counts, trial_counts;
  for (const auto& experiment : *experiments) {
    ++experiment_counts[experiment.state];
    auto trials = journal.trials(experiment.id);
    if (!trials) return fail(trials.error());
    for (const auto& trial : *trials) ++trial_counts[trial.state];
  }
  return std::vector<MetricFamily>{by_state("volador_experiments", "Experiments by state", experiment_counts),
                                   by_state("volador_trials", "Trials by state", trial_counts)};
}

MetricFamily slot_family(const wire::AgentList& agents) {
  MetricFamily family{"volador_slots", "Slots offered by each agent, used by a trial or free", "gauge", {}};
  for (const auto& agent : agents.agents) {
    std::map<std::pair<std::string, std::string>, double> counts;  // (type, use)
    for (std::size_t i = 0; i < agent.slots.size(); ++i) {
      const bool used = i < agent.slot_trials.size() && agent.slot_trials[i] != 0;
      ++counts[{std::string(to_string(agent.slots[i].type)), used ? "used" : "free"}];
    }
    for (const auto& [key, count] : counts)
      family.samples.push_back({{{"agent", agent.agent_id}, {"type", key.first}, {"use", key.second}}, count, ""});
  }
  return family;
}

std::vector<MetricFamily> journal_families(const storage::JournalStats::Snapshot& stats) {
  const auto commits = static_cast<double>(stats.commits);
  MetricFamily latency{"volador_journal_commit_seconds", "Time of each journal commit (one synced write)", "histogram", {}};
  const auto& bounds = storage::JournalStats::kLatencyBounds;
  for (std::size_t i = 0; i < bounds.size(); ++i)
    latency.samples.push_back({{{"le", fmt::format("{}", bounds[i])}}, static_cast<double>(stats.commits_within[i]), "_bucket"});
  latency.samples.push_back({{{"le", "+Inf"}}, commits, "_bucket"});
  latency.samples.push_back({{}, stats.commit_seconds, "_sum"});
  latency.samples.push_back({{}, commits, "_count"});
  return {
      {"volador_journal_commits_total", "Journal commits since the master started", "counter", {{{}, commits, ""}}},
      std::move(latency),
      {"volador_metric_reports_total",
       "Metric reports journaled, by kind (a Python or native trial's training or validation workload makes one each)",
       "counter",
       {{{{"kind", "TRAINING"}}, static_cast<double>(stats.training_reports), ""},
        {{{"kind", "VALIDATION"}}, static_cast<double>(stats.validation_reports), ""}}},
      {"volador_checkpoints_total", "Checkpoints journaled (a checkpoint workload each)", "counter",
       {{{}, static_cast<double>(stats.checkpoints), ""}}}};
}

}  // namespace volador::http
