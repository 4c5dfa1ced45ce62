#pragma once
// How the CLI shows master replies: aligned tables for people, JSON for
// scripts (--json). Pure functions of the wire messages.

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/wire/messages.hpp"

namespace volador::cli {

nlohmann::json to_json(const wire::ExperimentSummary& e);
nlohmann::json to_json(const wire::TrialSummary& t);
nlohmann::json to_json(const wire::ExperimentList& list);
nlohmann::json to_json(const wire::ExperimentDetail& detail);
nlohmann::json to_json(const wire::TrialDetail& detail);

nlohmann::json to_json(const wire::CheckpointList& list);

std::string render_table(const wire::ExperimentList& list);
std::string render_table(const wire::CheckpointList& list);
std::string render_table(const wire::ExperimentDetail& detail);
std::string render_table(const wire::TrialDetail& detail);

// One line of progress for `create --follow`, e.g.
// "experiment 3 ACTIVE 40% | trials: 2 active, 1 completed | best accuracy 0.87 (trial 5)".
std::string progress_line(const wire::ExperimentDetail& detail);

}  // namespace volador::cli
