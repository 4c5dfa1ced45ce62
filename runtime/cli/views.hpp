#pragma once
// How the CLI shows master replies: aligned tables for people, JSON for
// scripts (--json). Pure functions of the wire messages. A record's JSON is
// its generated to_json (schemas/control.capnp); what follows are the views
// that derive more than one record shows.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/wire/messages.hpp"

namespace volador::cli {

// Agents: an array of {id, hostname, pool, labels, slots, used_slots, slot_types, trials: [{trial_id, slots}]}.
nlohmann::json agents_json(const wire::AgentList& list);
// One object per slot, {agent_id, pool, slot, trial_id (null when free)}: each
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
// Pools: capacity, use, queue, preemptions under way and each experiment's slots beside its fair share.
std::string render_table(const wire::PoolList& list);
std::string render_table(const wire::UserList& list);
std::string render_table(const wire::ModelList& list);
// The model's description, then its versions: checkpoint, experiment, trial, batches, metrics, hyperparameters.
std::string render_table(const wire::ModelDetail& detail);
// A log line as `trial logs` prints it: the text, after "[stderr] " or
// "[system] " when not from stdout.
std::string render_line(const wire::LogEntry& line);

// One line of progress for `create --follow`, e.g.
// "experiment 3 ACTIVE 40% | trials: 2 active, 1 completed | best accuracy 0.87 (trial 5)".
std::string progress_line(const wire::ExperimentDetail& detail);

}  // namespace volador::cli
