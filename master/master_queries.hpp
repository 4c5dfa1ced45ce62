#pragma once
// Read-only views for clients that read the journal (no actor state): what
// `trial describe`, `trial logs` and `checkpoint list` show; and from the
// resource pool's scheduler: what `agent list` shows. Experiment and trial
// summaries come from the read model (read_model.hpp).

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "master/read_model.hpp"
#include "runtime/core/error.hpp"
#include "runtime/scheduling/slot_scheduler.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The trial's summary (from `summaries`) and its metric reports of `kind`
// (every kind when none), each series cut to at most `max_points` points
// (0: all; metric_downsampling.hpp); not_found when no trial has this id.
Result<wire::TrialDetail> describe_trial(const storage::Journal& journal, const ReadModel& summaries,
                                         std::uint64_t trial_id, std::size_t max_points,
                                         std::optional<MetricKind> kind = std::nullopt);
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
// slots as it registered them and its work disk as it last reported it
// (`registered`, by agent id).
wire::AgentList list_agents(const std::vector<scheduling::AgentUsage>& usage,
                            const std::map<std::string, wire::AgentInfo>& registered);

}  // namespace volador::master
