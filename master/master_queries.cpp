#include "master/master_queries.hpp"

#include <optional>

#include "master/experiment_store.hpp"
#include "master/users/ownership.hpp"
#include "runtime/config/config_parser.hpp"

namespace volador::master {
namespace {

// What a summary and a description show of an experiment's config.
struct ConfigFacts {
  std::string searcher;
  std::string metric;
  bool smaller_is_better = true;
  std::vector<std::string> labels;
  std::string description;
  std::string workspace, project;
};

// The facts of a journaled experiment's config (it was valid at submission).
ConfigFacts config_facts(const storage::ExperimentRecord& record) {
  auto parsed = config::parse_experiment_config(record.config_yaml, record.config_file_name);
  const auto* cfg = std::get_if<config::ExperimentConfig>(&parsed);
  if (cfg == nullptr) return {};
  return {cfg->searcher.name, cfg->searcher.metric, cfg->searcher.smaller_is_better,
          cfg->labels.get<std::vector<std::string>>(), cfg->description, cfg->workspace, cfg->project};
}

bool better(double a, double b, bool smaller_is_better) { return smaller_is_better ? a < b : a > b; }

std::optional<double> best_validation(const std::vector<storage::MetricRecord>& metrics, const ConfigFacts& facts) {
  std::optional<double> best;
  for (const auto& m : metrics) {
    if (m.kind != storage::MetricKind::validation) continue;
    auto it = m.metrics.find(facts.metric);
    if (it != m.metrics.end() && (!best || better(it->second, *best, facts.smaller_is_better))) best = it->second;
  }
  return best;
}

wire::TrialSummary trial_summary(const storage::TrialRecord& t, std::optional<double> best) {
  return {.id = t.id,
          .experiment_id = t.experiment_id,
          .request_id = t.request_id,
          .state = t.state,
          .hparams = t.hparams.dump(),
          .seed = t.seed,
          .batches_trained = t.batches_trained,
          .restarts = t.restarts,
          .best_validation = best,
          .error = t.error_message,
          .created_at_ms = t.created_at_ms,
          .ended_at_ms = t.ended_at_ms};
}

struct ExperimentView {
  wire::ExperimentSummary summary;
  std::vector<wire::TrialSummary> trials;
  std::string description;
};

// The trial's best validation: remembered in `ended` (when given) once the trial has ended.
Result<std::optional<double>> trial_best(const storage::Journal& journal, const storage::TrialRecord& t,
                                         const ConfigFacts& facts, EndedTrialBests* ended) {
  if (ended != nullptr)
    if (auto kept = ended->find(t.id)) return *kept;
  auto metrics = journal.metrics(t.id);
  if (!metrics) return fail(metrics.error());
  auto best = best_validation(*metrics, facts);
  if (ended != nullptr && is_terminal(t.state)) ended->remember(t.id, best);
  return best;
}

Result<ExperimentView> view(const storage::Journal& journal, const storage::ExperimentRecord& e, EndedTrialBests* ended) {
  auto facts = config_facts(e);
  auto trials = journal.trials(e.id);
  if (!trials) return fail(trials.error());
  ExperimentView out{.summary = {}, .trials = {}, .description = facts.description};
  auto& s = out.summary;
  s = {.id = e.id,
       .name = e.name,
       .state = e.state,
       .progress = e.progress,
       .searcher = facts.searcher,
       .metric = facts.metric,
       .smaller_is_better = facts.smaller_is_better,
       .num_trials = static_cast<std::uint32_t>(trials->size()),
       .created_at_ms = e.created_at_ms,
       .ended_at_ms = e.ended_at_ms,
       .error = e.error_message,
       .owner = owner_of(e),
       .archived = e.archived,
       .labels = std::move(facts.labels),
       .workspace = std::move(facts.workspace),
       .project = std::move(facts.project)};
  for (const auto& t : *trials) {
    auto found = trial_best(journal, t, facts, ended);
    if (!found) return fail(found.error());
    const auto best = *found;
    if (best && (!s.best || better(*best, s.best->metric, facts.smaller_is_better)))
      s.best = wire::BestTrial{.metric = *best, .trial_id = t.id};
    out.trials.push_back(trial_summary(t, best));
  }
  return out;
}

}  // namespace

Result<wire::ExperimentList> list_experiments(const storage::Journal& journal, EndedTrialBests* ended) {
  auto experiments = journal.experiments();
  if (!experiments) return fail(experiments.error());
  wire::ExperimentList list;
  for (const auto& e : *experiments) {
    auto v = view(journal, e, ended);
    if (!v) return fail(v.error());
    list.experiments.push_back(std::move(v->summary));
  }
  return list;
}

Result<wire::ExperimentDetail> describe_experiment(const storage::Journal& journal, std::uint64_t experiment_id,
                                                  EndedTrialBests* ended) {
  auto e = journal.experiment(experiment_id);
  if (!e) return fail(e.error());
  auto v = view(journal, *e, ended);
  if (!v) return fail(v.error());
  return wire::ExperimentDetail{.summary = std::move(v->summary),
                                .description = std::move(v->description),
                                .config = e->config_yaml,
                                .trials = std::move(v->trials)};
}

Result<wire::TrialDetail> describe_trial(const storage::Journal& journal, std::uint64_t trial_id) {
  auto t = journal.trial(trial_id);
  if (!t) return fail(t.error());
  auto e = journal.experiment(t->experiment_id);
  if (!e) return fail(e.error());
  auto metrics = journal.metrics(trial_id);
  if (!metrics) return fail(metrics.error());
  wire::TrialDetail detail{.summary = trial_summary(*t, best_validation(*metrics, config_facts(*e)))};
  for (const auto& m : *metrics)
    detail.metrics.push_back({.kind = m.kind, .batches = m.batches, .reported_at_ms = m.reported_at_ms, .metrics = m.metrics});
  return detail;
}

Result<wire::CheckpointList> list_checkpoints(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                              std::uint64_t experiment_id, std::uint64_t trial_id) {
  if (trial_id != 0) {
    auto t = journal.trial(trial_id);
    if (!t) return fail(t.error());
    experiment_id = t->experiment_id;
  }
  auto e = journal.experiment(experiment_id);
  if (!e) return fail(e.error());
  auto records = trial_id != 0 ? journal.checkpoints_of_trial(trial_id) : journal.checkpoints_of_experiment(experiment_id);
  if (!records) return fail(records.error());
  auto parsed = config::parse_experiment_config(e->config_yaml, e->config_file_name);
  const auto* cfg = std::get_if<config::ExperimentConfig>(&parsed);
  auto store = cfg ? experiment_store(*cfg, data_dir) : fail(Error::corruption("the journaled config no longer parses"));
  wire::CheckpointList list;
  for (const auto& c : *records) {
    const bool active = c.state == storage::CheckpointState::active;
    auto path = active && store ? (*store)->path(c.uuid) : Result<std::filesystem::path>(std::filesystem::path());
    list.checkpoints.push_back({.uuid = c.uuid,
                                .experiment_id = c.experiment_id,
                                .trial_id = c.trial_id,
                                .batches = c.batches,
                                .state = c.state,
                                .total_bytes = c.total_bytes,
                                .created_at_ms = c.created_at_ms,
                                .metrics = c.validation_metrics,
                                .path = path ? path->string() : std::string()});
  }
  return list;
}

Result<wire::CheckpointList> find_checkpoint(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                             const std::string& uuid) {
  auto record = journal.checkpoint(uuid);
  if (!record) return fail(record.error());
  auto of_trial = list_checkpoints(journal, data_dir, 0, record->trial_id);
  if (!of_trial) return fail(of_trial.error());
  std::erase_if(of_trial->checkpoints, [&](const wire::CheckpointInfo& c) { return c.uuid != uuid; });
  return of_trial;
}

namespace {

// Whether the trial has a line with seq `seq` (> 0).
Result<bool> has_log_line(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t seq) {
  auto lines = journal.logs(trial_id, seq - 1, 1);
  if (!lines) return fail(lines.error());
  return !lines->empty();
}

// The seq of the trial's newest line (0: none), found in O(log n) one-line
// reads since seqs run 1, 2, ... without gaps: doubling, then bisecting.
Result<std::uint64_t> last_log_seq(const storage::Journal& journal, std::uint64_t trial_id) {
  std::uint64_t present = 0, absent = 1;  // seq `present` exists (0: trivially), `absent` does not
  for (;;) {
    auto found = has_log_line(journal, trial_id, absent);
    if (!found) return fail(found.error());
    if (!*found) break;
    present = absent;
    absent *= 2;
  }
  while (absent - present > 1) {
    const std::uint64_t middle = present + (absent - present) / 2;
    auto found = has_log_line(journal, trial_id, middle);
    if (!found) return fail(found.error());
    (*found ? present : absent) = middle;
  }
  return present;
}

}  // namespace

Result<wire::LogBatch> trial_logs(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t after_seq,
                                  std::size_t limit) {
  if (auto t = journal.trial(trial_id); !t) return fail(t.error());
  auto last = last_log_seq(journal, trial_id);
  if (!last) return fail(last.error());
  auto lines = journal.logs(trial_id, after_seq, limit);
  if (!lines) return fail(lines.error());
  wire::LogBatch batch;
  for (auto& l : *lines) batch.lines.push_back({l.seq, l.time_ms, std::move(l.stream), std::move(l.text)});
  batch.last_seq = std::max(*last, batch.lines.empty() ? 0 : batch.lines.back().seq);  // lines appended meanwhile
  return batch;
}

wire::AgentList list_agents(const std::vector<scheduling::AgentUsage>& usage,
                            const std::map<std::string, wire::AgentInfo>& registered) {
  wire::AgentList list;
  for (const auto& agent : usage) {
    auto info = registered.find(agent.agent_id);
    if (info == registered.end()) continue;
    list.agents.push_back({agent.agent_id, info->second.hostname, info->second.slots, agent.slot_owners});
  }
  return list;
}

}  // namespace volador::master
