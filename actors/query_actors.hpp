#pragma once
// The master's query actors: they answer clients' questions that the gateway
// hands on (SummaryQueryActor and HistoryQueryActor, actors/interfaces.hpp).
// The summary actor answers from the read model alone; the history actor
// reads the journal (metric reports, log lines, checkpoints) as written, not
// waiting behind queued writes (storage/journal/durable_reads.hpp). Spawn
// each detached: a long answer then holds up neither the other nor the gateway.

#include <filesystem>
#include <memory>

#include "actors/interfaces.hpp"
#include "master/read_model.hpp"
#include "storage/journal/journal.hpp"

namespace volador::actors {

SummaryQueryActor::behavior_type summary_query_actor(std::shared_ptr<const master::ReadModel> summaries);

// `data_dir`: the master's, where default checkpoint storage lies.
HistoryQueryActor::behavior_type history_query_actor(std::shared_ptr<const storage::Journal> journal,
                                                     std::shared_ptr<const master::ReadModel> summaries,
                                                     std::filesystem::path data_dir);

}  // namespace volador::actors
