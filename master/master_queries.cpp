#include "master/master_queries.hpp"

#include "master/experiment_store.hpp"
#include "master/metric_downsampling.hpp"
#include "runtime/config/config_parser.hpp"

namespace volador::master {

Result<wire::TrialDetail> describe_trial(const storage::Journal& journal, const ReadModel& summaries,
                                         std::uint64_t trial_id, std::size_t max_points,
                                         std::optional<MetricKind> kind) {
  auto summary = summaries.trial(trial_id);
  if (!summary) return fail(summary.error());
  auto reports = journal.metrics(trial_id);
  if (!reports) return fail(reports.error());
  if (kind) std::erase_if(*reports, [&](const auto& report) { return report.kind != *kind; });
  auto kept = downsample_reports(*reports, max_points);
  return wire::TrialDetail{.summary = std::move(*summary),
                           .metrics = std::move(kept.points),
                           .total_reports = reports->size(),
                           .downsampled = kept.downsampled};
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

Result<wire::LogBatch> trial_logs(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t after_seq,
                                  std::size_t limit) {
  if (auto t = journal.trial(trial_id); !t) return fail(t.error());
  auto last = journal.last_log_seq(trial_id);
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
    list.agents.push_back({agent.agent_id, info->second.hostname, info->second.slots, agent.slot_owners, agent.pool,
                           agent.labels, info->second.work_disk_free_bytes, info->second.work_disk_refusal,
                           info->second.container_runtime});
  }
  return list;
}

}  // namespace volador::master
