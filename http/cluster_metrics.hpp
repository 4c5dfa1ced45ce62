#pragma once
// The cluster's state as Prometheus metric families, for /metrics:
// experiments and trials by state (from the journal), slots used and free
// per agent (from the resource pool's list), the journal's writes.

#include <vector>

#include "http/prometheus_text.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::http {

// volador_experiments and volador_trials, by state (every state, zeros included).
Result<std::vector<MetricFamily>> run_state_families(const storage::Journal& journal);

// volador_slots, by agent, slot type and use ("used" or "free").
MetricFamily slot_family(const wire::AgentList& agents);

// volador_journal_commits_total, volador_journal_commit_seconds (histogram),
// volador_metric_reports_total by kind and volador_checkpoints_total: what the
// master's journal has written since it started.
std::vector<MetricFamily> journal_families(const storage::JournalStats::Snapshot& stats);

}  // namespace volador::http
