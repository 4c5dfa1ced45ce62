#include "runtime/cli/views.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "runtime/core/states.hpp"

namespace volador::cli {
namespace {

using Row = std::vector<std::string>;

// Columns padded to their widest cell, two spaces apart.
std::string table(const Row& header, const std::vector<Row>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const Row& r) {
    std::string out;
    for (std::size_t c = 0; c < r.size(); ++c) {
      out += r[c];
      if (c + 1 < r.size()) out += std::string(width[c] - r[c].size() + 2, ' ');
    }
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string metric_text(std::optional<double> value) { return value ? fmt::format("{:.6g}", *value) : "-"; }

std::string compact_hparams(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object()) return text;
  std::string out;
  for (const auto& [k, v] : json.items()) {
    if (k == "global_batch_size") continue;
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_number_float() ? fmt::format("{:.4g}", v.get<double>()) : v.dump());
  }
  return out;
}

std::string percent(double progress) { return fmt::format("{:.0f}%", progress * 100); }

// The trials using an agent's slots and how many each, by trial id.
std::map<std::uint64_t, std::uint32_t> slots_by_trial(const wire::AgentStatus& agent) {
  std::map<std::uint64_t, std::uint32_t> trials;
  for (auto trial : agent.slot_trials)
    if (trial != 0) ++trials[trial];
  return trials;
}

// "cpu", or "gpu NVIDIA H100 80GB HBM3 (80 GiB)".
std::string slot_type_text(const wire::SlotSpec& slot) {
  if (slot.type != SlotType::gpu) return lowercase_name(slot.type);
  return fmt::format("gpu {} ({} GiB)", slot.model, slot.memory_bytes >> 30);
}

std::string best_text(const wire::ExperimentSummary& e) {
  return e.best ? fmt::format("{:.6g}", e.best->metric) : "-";
}

// An agent's free work disk, "77.9 GiB" or "512 MiB", and "(full)" while it refuses trials for it.
std::string work_disk_text(const wire::AgentStatus& agent) {
  const auto free = agent.work_disk_free_bytes;
  auto text = free >= (1ull << 30) ? fmt::format("{:.1f} GiB", static_cast<double>(free) / (1ull << 30))
                                   : fmt::format("{} MiB", free >> 20);
  return agent.work_disk_refusal.empty() ? text : text + " (full)";
}

// An agent's slot types with their counts, e.g. {"gpu Fake GPU (80 GiB)": 2}.
std::map<std::string, std::uint32_t> slot_types(const wire::AgentStatus& agent) {
  std::map<std::string, std::uint32_t> types;
  for (const auto& slot : agent.slots) ++types[slot_type_text(slot)];
  return types;
}

}  // namespace

nlohmann::json agents_json(const wire::AgentList& list) {
  auto out = nlohmann::json::array();
  for (const auto& a : list.agents) {
    auto trials = nlohmann::json::array();
    std::uint32_t used = 0;
    for (const auto& [trial, slots] : slots_by_trial(a)) {
      trials.push_back({{"trial_id", trial}, {"slots", slots}});
      used += slots;
    }
    auto types = nlohmann::json::object();
    for (const auto& [type, slots] : slot_types(a)) types[type] = slots;
    out.push_back({{"id", a.agent_id}, {"hostname", a.hostname}, {"pool", a.pool}, {"labels", a.labels},
                   {"slots", a.slots.size()}, {"used_slots", used}, {"slot_types", types}, {"trials", trials},
                   {"work_disk_free_bytes", a.work_disk_free_bytes},
                   {"work_disk_refusal", a.work_disk_refusal.empty() ? nlohmann::json(nullptr)
                                                                     : nlohmann::json(a.work_disk_refusal)},
                   {"container_runtime", a.container_runtime.empty() ? nlohmann::json(nullptr)
                                                                     : nlohmann::json(a.container_runtime)}});
  }
  return out;
}

nlohmann::json slots_json(const wire::AgentList& list) {
  auto out = nlohmann::json::array();
  for (const auto& a : list.agents)
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      const auto& slot = a.slots[i];
      const auto trial = i < a.slot_trials.size() ? a.slot_trials[i] : 0;
      out.push_back({{"agent_id", a.agent_id}, {"pool", a.pool}, {"slot", i}, {"type", lowercase_name(slot.type)}, {"model", slot.model},
                     {"memory_bytes", slot.memory_bytes}, {"device", slot.device_uuid},
                     {"trial_id", trial != 0 ? nlohmann::json(trial) : nlohmann::json(nullptr)}});
    }
  return out;
}

std::string render_table(const std::vector<wire::TrialSummary>& trials) {
  std::vector<Row> rows;
  for (const auto& t : trials)
    rows.push_back({std::to_string(t.id), std::to_string(t.experiment_id), std::string(to_string(t.state)),
                    std::to_string(t.batches_trained), std::to_string(t.restarts), std::to_string(t.preemptions),
                    metric_text(t.best_validation), compact_hparams(t.hparams)});
  return table({"TRIAL", "EXPERIMENT", "STATE", "BATCHES", "RESTARTS", "PREEMPTIONS", "BEST", "HPARAMS"}, rows);
}

std::string render_table(const wire::AgentList& list) {
  std::vector<Row> rows;
  for (const auto& a : list.agents) {
    std::string trials, types;
    std::uint32_t used = 0;
    for (const auto& [trial, slots] : slots_by_trial(a)) {
      trials += fmt::format("{}{} ({} slot{})", trials.empty() ? "" : ", ", trial, slots, slots == 1 ? "" : "s");
      used += slots;
    }
    for (const auto& [type, slots] : slot_types(a)) types += fmt::format("{}{} x {}", types.empty() ? "" : ", ", slots, type);
    std::string labels;
    for (const auto& [key, value] : a.labels) labels += fmt::format("{}{}={}", labels.empty() ? "" : ",", key, value);
    rows.push_back({a.agent_id, a.hostname, a.pool, std::to_string(a.slots.size()), std::to_string(used),
                    types.empty() ? "-" : types, work_disk_text(a),
                    a.container_runtime.empty() ? "-" : a.container_runtime, labels.empty() ? "-" : labels,
                    trials.empty() ? "-" : trials});
  }
  return table({"AGENT", "HOST", "POOL", "SLOTS", "USED", "TYPE", "DISK FREE", "IMAGES", "LABELS", "TRIALS"}, rows);
}

std::string render_table(const wire::PoolList& list) {
  std::vector<Row> rows;
  for (const auto& p : list.pools) {
    std::string shares;
    for (const auto& e : p.experiments)
      shares += fmt::format("{}{} (p{} w{:g}: {} of {:.1f})", shares.empty() ? "" : ", ", e.experiment_id, e.priority,
                            e.weight, e.allocated_slots, e.ideal_slots);
    rows.push_back({p.name, std::to_string(p.agents), std::to_string(p.slots), std::to_string(p.used_slots),
                    std::to_string(p.running_trials), fmt::format("{} ({} slots)", p.pending_trials, p.pending_slots),
                    std::to_string(p.preempting_trials), shares.empty() ? "-" : shares,
                    p.description.empty() ? "-" : p.description});
  }
  return table({"POOL", "AGENTS", "SLOTS", "USED", "RUNNING", "QUEUED", "PREEMPTING", "EXPERIMENTS (priority weight: "
                "slots of fair share)", "DESCRIPTION"},
               rows);
}

std::string render_slots(const wire::AgentList& list) {
  std::vector<Row> rows;
  for (const auto& a : list.agents)
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      const auto trial = i < a.slot_trials.size() ? a.slot_trials[i] : 0;
      rows.push_back({a.agent_id, a.pool, std::to_string(i), slot_type_text(a.slots[i]),
                      a.slots[i].device_uuid.empty() ? "-" : a.slots[i].device_uuid,
                      trial != 0 ? "trial " + std::to_string(trial) : "free"});
    }
  return table({"AGENT", "POOL", "SLOT", "TYPE", "DEVICE", "USED BY"}, rows);
}

std::string render_table(const wire::UserList& list) {
  std::vector<Row> rows;
  for (const auto& u : list.users)
    rows.push_back({u.name, u.admin ? "admin" : "user", u.disabled ? "disabled" : "active"});
  return table({"NAME", "ROLE", "STATE"}, rows);
}

std::string render_table(const wire::ModelList& list) {
  std::vector<Row> rows;
  for (const auto& m : list.models) rows.push_back({m.name, std::to_string(m.num_versions), m.owner, m.description});
  return table({"NAME", "VERSIONS", "OWNER", "DESCRIPTION"}, rows);
}

std::string render_table(const wire::ModelDetail& detail) {
  std::vector<Row> rows;
  for (const auto& v : detail.versions) {
    std::string metrics;
    for (const auto& [name, value] : v.metrics) metrics += fmt::format("{}{}={:.4g}", metrics.empty() ? "" : " ", name, value);
    rows.push_back({std::to_string(v.version), v.checkpoint_uuid, std::to_string(v.experiment_id), std::to_string(v.trial_id),
                    std::to_string(v.batches), metrics.empty() ? "-" : metrics, compact_hparams(v.hparams)});
  }
  const auto& s = detail.summary;
  return fmt::format("model {} (owner {}){}\n", s.name, s.owner, s.description.empty() ? "" : ": " + s.description) +
         table({"VERSION", "CHECKPOINT", "EXPERIMENT", "TRIAL", "BATCHES", "METRICS", "HYPERPARAMETERS"}, rows);
}

std::string render_line(const wire::LogEntry& line) {
  return (line.stream == "stdout" ? "" : "[" + line.stream + "] ") + line.text;
}

std::string render_table(const wire::CheckpointList& list) {
  std::vector<Row> rows;
  for (const auto& c : list.checkpoints) {
    std::string metrics;
    for (const auto& [name, value] : c.metrics) metrics += fmt::format("{}{}={:.4g}", metrics.empty() ? "" : " ", name, value);
    rows.push_back({c.uuid, std::to_string(c.trial_id), std::to_string(c.batches), std::string(to_string(c.state)),
                    std::to_string(c.total_bytes), metrics});
  }
  return table({"UUID", "TRIAL", "BATCHES", "STATE", "BYTES", "VALIDATION"}, rows);
}

std::string render_table(const wire::ExperimentList& list) {
  // Experiments grouped by workspace and project (none first), in id order within a group.
  std::map<std::pair<std::string, std::string>, std::vector<Row>> groups;
  for (const auto& e : list.experiments)
    groups[{e.workspace, e.project}].push_back(
        {std::to_string(e.id), e.name, e.owner, std::string(to_string(e.state)) + (e.archived ? " (archived)" : ""),
         percent(e.progress), e.searcher, std::to_string(e.num_trials), best_text(e), fmt::format("{}", fmt::join(e.labels, ","))});
  const Row header{"ID", "NAME", "OWNER", "STATE", "PROGRESS", "SEARCHER", "TRIALS", "BEST", "LABELS"};
  if (groups.size() <= 1 && (groups.empty() || groups.begin()->first == std::pair<std::string, std::string>{}))
    return table(header, groups.empty() ? std::vector<Row>{} : groups.begin()->second);
  std::string out;
  for (const auto& [where, rows] : groups) {
    const auto& [workspace, project] = where;
    out += (out.empty() ? "" : "\n") + fmt::format("Workspace: {}  Project: {}\n", workspace.empty() ? "-" : workspace,
                                                    project.empty() ? "-" : project);
    out += table(header, rows);
  }
  return out;
}

std::string render_table(const wire::ExperimentDetail& detail) {
  const auto& e = detail.summary;
  std::string out = fmt::format("Experiment {}: {}\nOwner: {}\nState: {}{}  Progress: {}\nSearcher: {}  Metric: {} ({})\n",
                                e.id, e.name, e.owner, to_string(e.state), e.archived ? " (archived)" : "",
                                percent(e.progress), e.searcher, e.metric,
                                e.smaller_is_better ? "smaller is better" : "larger is better");
  if (!e.workspace.empty()) out += fmt::format("Workspace: {}  Project: {}\n", e.workspace, e.project);
  if (!detail.description.empty()) out += "Description: " + detail.description + "\n";
  if (!e.labels.empty()) out += fmt::format("Labels: {}\n", fmt::join(e.labels, ", "));
  if (!e.error.empty()) out += "Error: " + e.error + "\n";
  if (e.best) out += fmt::format("Best: {} = {:.6g} (trial {})\n", e.metric, e.best->metric, e.best->trial_id);
  std::vector<Row> rows;
  for (const auto& t : detail.trials)
    rows.push_back({std::to_string(t.id), std::string(to_string(t.state)), std::to_string(t.batches_trained),
                    metric_text(t.best_validation), compact_hparams(t.hparams)});
  return out + "\n" + table({"TRIAL", "STATE", "BATCHES", "BEST " + e.metric, "HPARAMS"}, rows);
}

std::string render_table(const wire::TrialDetail& detail) {
  const auto& t = detail.summary;
  std::string out = fmt::format("Trial {} (experiment {}): {}\nHyperparameters: {}\nSeed: {}  Batches trained: {}\n",
                                t.id, t.experiment_id, to_string(t.state), t.hparams, t.seed, t.batches_trained);
  if (t.warm_start_trial != 0)
    out += fmt::format("Started from a checkpoint of trial {}\n", t.warm_start_trial);
  if (!t.error.empty()) out += "Error: " + t.error + "\n";
  std::vector<std::string> names;
  for (const auto& m : detail.metrics)
    for (const auto& [name, value] : m.metrics)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  Row header{"KIND", "BATCHES"};
  header.insert(header.end(), names.begin(), names.end());
  std::vector<Row> rows;
  for (const auto& m : detail.metrics) {
    Row row{lowercase_name(m.kind), std::to_string(m.batches)};
    for (const auto& name : names) {
      auto it = m.metrics.find(name);
      row.push_back(it == m.metrics.end() ? "" : fmt::format("{:.6g}", it->second));
    }
    rows.push_back(std::move(row));
  }
  return out + "\n" + table(header, rows);
}

std::string progress_line(const wire::ExperimentDetail& detail) {
  const auto& e = detail.summary;
  std::map<RunState, int> states;
  for (const auto& t : detail.trials) ++states[t.state];
  std::string counts;
  for (const auto& [state, n] : states) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + lowercase_name(state);
  std::string line = fmt::format("experiment {} {} {} | trials: {}", e.id, to_string(e.state), percent(e.progress),
                                 counts.empty() ? "none yet" : counts);
  if (e.best) line += fmt::format(" | best {} {:.4g} (trial {})", e.metric, e.best->metric, e.best->trial_id);
  return line;
}

}  // namespace volador::cli
