#include "http/ended_experiments.hpp"

#include <algorithm>

#include "master/master_queries.hpp"

namespace volador::http {
namespace {

bool all_ended(const wire::ExperimentDetail& detail) {
  return is_terminal(detail.summary.state) &&
         std::ranges::all_of(detail.trials, [](const auto& trial) { return is_terminal(trial.state); });
}

}  // namespace

Result<EndedExperiments::Detail> EndedExperiments::detail(const storage::Journal& journal,
                                                          const storage::ExperimentRecord& record) {
  if (is_terminal(record.state)) {
    std::lock_guard lock(mutex_);
    if (auto kept = ended_.find(record.id); kept != ended_.end()) return kept->second;
  }
  auto described = master::describe_experiment(journal, record.id, &trial_bests_);
  if (!described) return fail(described.error());
  auto detail = std::make_shared<const wire::ExperimentDetail>(std::move(*described));
  if (all_ended(*detail)) {
    std::lock_guard lock(mutex_);
    ended_.emplace(record.id, detail);
  }
  return detail;
}

Result<wire::ExperimentDetail> EndedExperiments::describe(const storage::Journal& journal, std::uint64_t id) {
  auto record = journal.experiment(id);
  if (!record) return fail(record.error());
  auto kept = detail(journal, *record);
  if (!kept) return fail(kept.error());
  auto out = **kept;
  out.summary.archived = record->archived;
  return out;
}

Result<wire::ExperimentList> EndedExperiments::list(const storage::Journal& journal) {
  auto records = journal.experiments();
  if (!records) return fail(records.error());
  wire::ExperimentList list;
  for (const auto& record : *records) {
    auto kept = detail(journal, record);
    if (!kept) return fail(kept.error());
    list.experiments.push_back((*kept)->summary);
    list.experiments.back().archived = record.archived;
  }
  return list;
}

}  // namespace volador::http
