#pragma once
// How the CLI shows master replies: aligned tables for people, JSON for
// scripts (--json). Pure functions of the wire messages.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/wire/messages.hpp"

namespace volador::cli {

nlohmann::json to_json(const wire::ExperimentSummary& e);
nlohmann::json to_json(const wire::TrialSummary& t);
nlohmann::json to_json(const wire::ExperimentList& list);
nlohmann::json to_json(const wire::ExperimentDetail& detail);
nlohmann::json to_json(const wire::TrialDetail& detail);

nlohmann::json to_json(const wire::CheckpointList& list);
// Trials of any experiments (`trial list`): an array of trial summaries.
nlohmann::json to_json(const std::vector<wire::TrialSummary>& trials);
// Log lines: an array of {seq, time_ms, stream, text}.
nlohmann::json to_json(const wire::LogEntry& line);
nlohmann::json to_json(const std::vector<wire::LogEntry>& lines);
// Agents: an array of {id, hostname, slots, used_slots, trials: [{trial_id, slots}]}.
nlohmann::json to_json(const wire::AgentList& list);
// One object per slot, {agent_id, slot, trial_id (null when free)}: each
// agent's slots numbered from 0, used ones first in trial order. The numbers
// are positions, not devices (agents hand out slot counts, not devices).
nlohmann::json slots_json(const wire::AgentList& list);

std::string render_table(const wire::ExperimentList& list);
std::string render_table(const wire::CheckpointList& list);
std::string render_table(const wire::ExperimentDetail& detail);
std::string render_table(const wire::TrialDetail& detail);
std::string render_table(const std::vector<wire::TrialSummary>& trials);
std::string render_table(const wire::AgentList& list);
std::string render_slots(const wire::AgentList& list);
// A log line as `trial logs` prints it: the text, after "[stderr] " or
// "[system] " when not from stdout.
std::string render_line(const wire::LogEntry& line);

// One line of progress for `create --follow`, e.g.
// "experiment 3 ACTIVE 40% | trials: 2 active, 1 completed | best accuracy 0.87 (trial 5)".
std::string progress_line(const wire::ExperimentDetail& detail);

}  // namespace volador::cli
