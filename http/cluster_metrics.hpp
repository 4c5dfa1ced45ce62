#pragma once
// The cluster's state as Prometheus metric families, for /metrics:
// experiments and trials by state (from the journal), slots used and free
// per agent (from the resource pool's list).

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

}  // namespace volador::http
