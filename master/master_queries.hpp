#pragma once
// Read-only views for clients, built from the journal (no actor state): what
// `experiment list/describe`, `trial describe` and `trial logs` show; and
// from the resource pool's scheduler: what `agent list` shows.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "master/ended_trial_bests.hpp"
#include "runtime/core/error.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Every experiment, archived ones included, each with its owner (master/users/ownership.hpp).
// `ended`, when given, remembers ended trials' best validations, so that a
// later call reads only running trials' metric reports.
Result<wire::ExperimentList> list_experiments(const storage::Journal& journal, EndedTrialBests* ended = nullptr);
// not_found when no experiment has this id. `ended` as for list_experiments.
Result<wire::ExperimentDetail> describe_experiment(const storage::Journal& journal, std::uint64_t experiment_id,
                                                  EndedTrialBests* ended = nullptr);
// not_found when no trial has this id.
Result<wire::TrialDetail> describe_trial(const storage::Journal& journal, std::uint64_t trial_id);
// At most `limit` log lines with seq > after_seq, and the seq of the trial's
// newest line (a trial's lines are numbered 1, 2, ... without gaps);
// not_found for an unknown trial.
Result<wire::LogBatch> trial_logs(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t after_seq,
                                  std::size_t limit);

// Checkpoints of one experiment (experiment_id != 0) or one trial, with
// where each lies; not_found for an unknown experiment or trial.
Result<wire::CheckpointList> list_checkpoints(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                              std::uint64_t experiment_id, std::uint64_t trial_id);

// The one checkpoint with this uuid (a list of one); not_found if unknown.
Result<wire::CheckpointList> find_checkpoint(const storage::Journal& journal, const std::filesystem::path& data_dir,
                                             const std::string& uuid);

// The agents in `usage` (SlotScheduler::usage), each with its host name and
// slots as it registered them (`registered`, by agent id).
wire::AgentList list_agents(const std::vector<scheduling::AgentUsage>& usage,
                            const std::map<std::string, wire::AgentInfo>& registered);

}  // namespace volador::master
