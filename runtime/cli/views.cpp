#include "runtime/cli/views.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

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

nlohmann::json hparams_json(const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json(text) : parsed;
}

std::string metric_text(bool has, double value) { return has ? fmt::format("{:.6g}", value) : "-"; }

std::string compact_hparams(const std::string& text) {
  auto json = hparams_json(text);
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
  if (slot.type != "gpu") return slot.type;
  return fmt::format("gpu {} ({} GiB)", slot.model, slot.memory_bytes >> 30);
}

// An agent's slot types with their counts, e.g. {"gpu Fake GPU (80 GiB)": 2}.
std::map<std::string, std::uint32_t> slot_types(const wire::AgentStatus& agent) {
  std::map<std::string, std::uint32_t> types;
  for (const auto& slot : agent.slots) ++types[slot_type_text(slot)];
  return types;
}

}  // namespace

nlohmann::json to_json(const wire::ExperimentSummary& e) {
  nlohmann::json out = {{"id", e.id}, {"name", e.name}, {"state", e.state}, {"progress", e.progress},
                        {"searcher", e.searcher}, {"metric", e.metric}, {"smaller_is_better", e.smaller_is_better},
                        {"num_trials", e.num_trials}, {"created_at_ms", e.created_at_ms},
                        {"ended_at_ms", e.ended_at_ms}, {"best_metric", nullptr}, {"best_trial_id", nullptr}};
  if (e.has_best_metric) {
    out["best_metric"] = e.best_metric;
    out["best_trial_id"] = e.best_trial_id;
  }
  if (!e.error_message.empty()) out["error"] = e.error_message;
  return out;
}

nlohmann::json to_json(const wire::TrialSummary& t) {
  nlohmann::json out = {{"id", t.id}, {"experiment_id", t.experiment_id}, {"state", t.state},
                        {"hparams", hparams_json(t.hparams_json)}, {"seed", t.seed},
                        {"batches_trained", t.batches_trained}, {"restarts", t.restarts},
                        {"best_validation", nullptr}};
  if (t.has_best_validation) out["best_validation"] = t.best_validation;
  if (!t.error_message.empty()) out["error"] = t.error_message;
  return out;
}

nlohmann::json to_json(const wire::ExperimentList& list) {
  auto out = nlohmann::json::array();
  for (const auto& e : list.experiments) out.push_back(to_json(e));
  return out;
}

nlohmann::json to_json(const wire::ExperimentDetail& detail) {
  auto out = to_json(detail.summary);
  out["description"] = detail.description;
  out["config"] = detail.config_yaml;
  out["trials"] = nlohmann::json::array();
  for (const auto& t : detail.trials) out["trials"].push_back(to_json(t));
  return out;
}

nlohmann::json to_json(const wire::TrialDetail& detail) {
  auto out = to_json(detail.summary);
  out["metrics"] = nlohmann::json::array();
  for (const auto& m : detail.metrics)
    out["metrics"].push_back({{"kind", m.kind}, {"batches", m.batches}, {"reported_at_ms", m.reported_at_ms},
                              {"metrics", m.metrics}});
  return out;
}

nlohmann::json to_json(const wire::CheckpointList& list) {
  auto out = nlohmann::json::array();
  for (const auto& c : list.checkpoints)
    out.push_back({{"uuid", c.uuid}, {"experiment_id", c.experiment_id}, {"trial_id", c.trial_id},
                   {"batches", c.batches}, {"state", c.state}, {"total_bytes", c.total_bytes},
                   {"created_at_ms", c.created_at_ms}, {"metrics", c.metrics}, {"path", c.path}});
  return out;
}

nlohmann::json to_json(const std::vector<wire::TrialSummary>& trials) {
  auto out = nlohmann::json::array();
  for (const auto& t : trials) out.push_back(to_json(t));
  return out;
}

nlohmann::json to_json(const wire::LogEntry& line) {
  return {{"seq", line.seq}, {"time_ms", line.time_ms}, {"stream", line.stream}, {"text", line.text}};
}

nlohmann::json to_json(const std::vector<wire::LogEntry>& lines) {
  auto out = nlohmann::json::array();
  for (const auto& l : lines) out.push_back(to_json(l));
  return out;
}

nlohmann::json to_json(const wire::AgentList& list) {
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
    out.push_back({{"id", a.agent_id}, {"hostname", a.hostname}, {"slots", a.slots.size()}, {"used_slots", used},
                   {"slot_types", types}, {"trials", trials}});
  }
  return out;
}

nlohmann::json slots_json(const wire::AgentList& list) {
  auto out = nlohmann::json::array();
  for (const auto& a : list.agents)
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      const auto& slot = a.slots[i];
      const auto trial = i < a.slot_trials.size() ? a.slot_trials[i] : 0;
      out.push_back({{"agent_id", a.agent_id}, {"slot", i}, {"type", slot.type}, {"model", slot.model},
                     {"memory_bytes", slot.memory_bytes}, {"device", slot.device_uuid},
                     {"trial_id", trial != 0 ? nlohmann::json(trial) : nlohmann::json(nullptr)}});
    }
  return out;
}

std::string render_table(const std::vector<wire::TrialSummary>& trials) {
  std::vector<Row> rows;
  for (const auto& t : trials)
    rows.push_back({std::to_string(t.id), std::to_string(t.experiment_id), t.state, std::to_string(t.batches_trained),
                    std::to_string(t.restarts), metric_text(t.has_best_validation, t.best_validation),
                    compact_hparams(t.hparams_json)});
  return table({"TRIAL", "EXPERIMENT", "STATE", "BATCHES", "RESTARTS", "BEST", "HPARAMS"}, rows);
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
    rows.push_back({a.agent_id, a.hostname, std::to_string(a.slots.size()), std::to_string(used), types.empty() ? "-" : types,
                    trials.empty() ? "-" : trials});
  }
  return table({"AGENT", "HOST", "SLOTS", "USED", "TYPE", "TRIALS"}, rows);
}

std::string render_slots(const wire::AgentList& list) {
  std::vector<Row> rows;
  for (const auto& a : list.agents)
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      const auto trial = i < a.slot_trials.size() ? a.slot_trials[i] : 0;
      rows.push_back({a.agent_id, std::to_string(i), slot_type_text(a.slots[i]),
                      a.slots[i].device_uuid.empty() ? "-" : a.slots[i].device_uuid,
                      trial != 0 ? "trial " + std::to_string(trial) : "free"});
    }
  return table({"AGENT", "SLOT", "TYPE", "DEVICE", "USED BY"}, rows);
}

std::string render_line(const wire::LogEntry& line) {
  return (line.stream == "stdout" ? "" : "[" + line.stream + "] ") + line.text;
}

std::string render_table(const wire::CheckpointList& list) {
  std::vector<Row> rows;
  for (const auto& c : list.checkpoints) {
    std::string metrics;
    for (const auto& [name, value] : c.metrics) metrics += fmt::format("{}{}={:.4g}", metrics.empty() ? "" : " ", name, value);
    rows.push_back({c.uuid, std::to_string(c.trial_id), std::to_string(c.batches), c.state,
                    std::to_string(c.total_bytes), metrics});
  }
  return table({"UUID", "TRIAL", "BATCHES", "STATE", "BYTES", "VALIDATION"}, rows);
}

std::string render_table(const wire::ExperimentList& list) {
  std::vector<Row> rows;
  for (const auto& e : list.experiments)
    rows.push_back({std::to_string(e.id), e.name, e.state, percent(e.progress), e.searcher,
                    std::to_string(e.num_trials), metric_text(e.has_best_metric, e.best_metric)});
  return table({"ID", "NAME", "STATE", "PROGRESS", "SEARCHER", "TRIALS", "BEST"}, rows);
}

std::string render_table(const wire::ExperimentDetail& detail) {
  const auto& e = detail.summary;
  std::string out = fmt::format("Experiment {}: {}\nState: {}  Progress: {}\nSearcher: {}  Metric: {} ({})\n", e.id,
                                e.name, e.state, percent(e.progress), e.searcher, e.metric,
                                e.smaller_is_better ? "smaller is better" : "larger is better");
  if (!e.error_message.empty()) out += "Error: " + e.error_message + "\n";
  if (e.has_best_metric) out += fmt::format("Best: {} = {:.6g} (trial {})\n", e.metric, e.best_metric, e.best_trial_id);
  std::vector<Row> rows;
  for (const auto& t : detail.trials)
    rows.push_back({std::to_string(t.id), t.state, std::to_string(t.batches_trained),
                    metric_text(t.has_best_validation, t.best_validation), compact_hparams(t.hparams_json)});
  return out + "\n" + table({"TRIAL", "STATE", "BATCHES", "BEST " + e.metric, "HPARAMS"}, rows);
}

std::string render_table(const wire::TrialDetail& detail) {
  const auto& t = detail.summary;
  std::string out = fmt::format("Trial {} (experiment {}): {}\nHyperparameters: {}\nSeed: {}  Batches trained: {}\n",
                                t.id, t.experiment_id, t.state, t.hparams_json, t.seed, t.batches_trained);
  if (!t.error_message.empty()) out += "Error: " + t.error_message + "\n";
  std::vector<std::string> names;
  for (const auto& m : detail.metrics)
    for (const auto& [name, value] : m.metrics)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  Row header{"KIND", "BATCHES"};
  header.insert(header.end(), names.begin(), names.end());
  std::vector<Row> rows;
  for (const auto& m : detail.metrics) {
    Row row{m.kind, std::to_string(m.batches)};
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
  std::map<std::string, int> states;
  for (const auto& t : detail.trials) ++states[t.state];
  std::string counts;
  for (const auto& [state, n] : states) {
    std::string lower = state;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + lower;
  }
  std::string line = fmt::format("experiment {} {} {} | trials: {}", e.id, e.state, percent(e.progress),
                                 counts.empty() ? "none yet" : counts);
  if (e.has_best_metric) line += fmt::format(" | best {} {:.4g} (trial {})", e.metric, e.best_metric, e.best_trial_id);
  return line;
}

}  // namespace volador::cli
