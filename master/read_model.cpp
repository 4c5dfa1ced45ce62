#include "master/read_model.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <type_traits>
#include <variant>

#include <spdlog/spdlog.h>

#include "master/users/ownership.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::master {
namespace {

bool better(double a, double b, bool smaller_is_better) { return smaller_is_better ? a < b : a > b; }

// The summary fields that come from a journaled experiment's config (it was valid at submission).
void read_config(const storage::ExperimentRecord& record, wire::ExperimentSummary& summary, std::string& description) {
  auto parsed = config::parse_experiment_config(record.config_yaml, record.config_file_name);
  const auto* cfg = std::get_if<config::ExperimentConfig>(&parsed);
  if (cfg == nullptr) return;
  summary.searcher = cfg->searcher.name;
  summary.metric = cfg->searcher.metric;
  summary.smaller_is_better = cfg->searcher.smaller_is_better;
  summary.labels = cfg->labels.get<std::vector<std::string>>();
  summary.workspace = cfg->workspace;
  summary.project = cfg->project;
  description = cfg->description;
}

Error unknown(std::string_view what, std::uint64_t id) {
  return Error::not_found(std::string(what) + " " + std::to_string(id) + " not found");
}

}  // namespace

Result<std::unique_ptr<ReadModel>> ReadModel::load(const storage::Journal& journal) {
  auto model = std::make_unique<ReadModel>();
  auto experiments = journal.experiments();
  if (!experiments) return fail(experiments.error());
  for (const auto& experiment : *experiments) {
    if (experiment.deleting) continue;
    model->take(experiment);
    auto metadata = journal.experiment_metadata(experiment.id);
    if (!metadata) return fail(metadata.error());
    if (*metadata) model->take(**metadata);
    auto trials = journal.trials(experiment.id);
    if (!trials) return fail(trials.error());
    for (const auto& trial : *trials) {
      model->take(trial);
      auto reports = journal.metrics(trial.id);
      if (!reports) return fail(reports.error());
      for (const auto& report : *reports) model->take(report);
      model->settle_touched();
    }
  }
  return model;
}

Status ReadModel::apply(const storage::JournalBatch& batch, const MetricHistory& history) {
  std::set<std::uint64_t> stale;  // trials whose best or latest report a deletion removed
  {
    std::unique_lock lock(mutex_);
    for (const auto& operation : batch.operations()) {
      std::visit(
          [&](const auto& op) {
            using Op = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<Op, storage::JournalBatch::MetricsDeletion>) {
              if (invalidates(op)) stale.insert(op.trial_id);
            } else if constexpr (requires { this->take(op); }) {
              take(op);
            }
          },
          operation);
    }
    settle_touched();
  }
  // Read outside the lock: observers run on the journal's one writer thread, so no batch comes meanwhile.
  for (std::uint64_t trial_id : stale) {
    auto reports = history(trial_id);
    if (!reports) return fail(reports.error());
    std::unique_lock lock(mutex_);
    replace_metrics(trial_id, *reports);
    settle_touched();
  }
  return {};
}

void ReadModel::take(const storage::ExperimentRecord& record) {
  if (record.deleting) return forget(record.id);
  auto [it, added] = experiments_.try_emplace(record.id);
  auto& entry = it->second;
  auto& s = entry.summary;
  if (added || entry.config_yaml != record.config_yaml) {
    const auto labels = s.labels;
    const auto description = entry.description;
    read_config(record, s, entry.description);
    if (entry.user_metadata) {
      s.labels = labels;
      entry.description = description;
    }
    entry.config_yaml = record.config_yaml;
  }
  s.id = record.id;
  s.name = record.name;
  s.state = record.state;
  s.progress = record.progress;
  s.created_at_ms = record.created_at_ms;
  s.ended_at_ms = record.ended_at_ms;
  s.error = record.error_message;
  s.owner = owner_of(record);
  s.archived = record.archived;
  changed(&entry);
}

void ReadModel::take(const storage::TrialRecord& record) {
  const bool added = !knows_trial(record.id);
  auto& s = open_trial(record.id).summary;
  auto found = experiments_.find(record.experiment_id);
  auto* experiment = found == experiments_.end() ? nullptr : &found->second;
  if (added) {
    s.hparams = record.hparams.dump();  // a trial's hyperparameters never change
    if (experiment != nullptr) {
      auto& ids = experiment->trial_ids;
      ids.insert(std::upper_bound(ids.begin(), ids.end(), record.id), record.id);
    }
  } else if (experiment != nullptr) {
    --experiment->trial_states[s.state];
  }
  if (experiment != nullptr) ++experiment->trial_states[record.state];
  s.id = record.id;
  s.experiment_id = record.experiment_id;
  s.request_id = record.request_id;
  s.state = record.state;
  s.seed = record.seed;
  s.batches_trained = record.batches_trained;
  s.restarts = record.restarts;
  s.preemptions = record.preemptions;
  s.warm_start_trial = record.warm_start_trial;
  s.error = record.error_message;
  s.created_at_ms = record.created_at_ms;
  s.ended_at_ms = record.ended_at_ms;
  changed(experiment);
}

void ReadModel::take(const storage::MetricRecord& record) {
  if (!knows_trial(record.trial_id)) return;
  auto& entry = open_trial(record.trial_id);
  auto& s = entry.summary;
  const bool training = record.kind == MetricKind::training;
  auto& latest = training ? entry.marks.latest_training : entry.marks.latest_validation;
  if (!latest || record.batches >= *latest) {
    latest = record.batches;
    (training ? s.latest_training : s.latest_validation) = record.metrics;
  }
  auto* experiment = experiment_of(entry);
  changed(experiment);
  if (record.kind != MetricKind::validation || experiment == nullptr) return;
  const auto& e = experiment->summary;
  auto value = record.metrics.find(e.metric);
  if (value == record.metrics.end()) return;
  const double v = value->second;
  const auto& best = s.best_validation;
  if (!best || better(v, *best, e.smaller_is_better) || (v == *best && record.batches < entry.marks.best_batches)) {
    s.best_validation = v;
    entry.marks.best_batches = record.batches;
    offer_best(*experiment, s.id, s.best_validation);
  }
}

void ReadModel::take(const storage::ExperimentMetadataRecord& record) {
  auto it = experiments_.find(record.experiment_id);
  if (it == experiments_.end()) return;
  auto& entry = it->second;
  entry.user_metadata = true;
  entry.description = record.description;
  entry.summary.labels = record.labels;
  changed(&entry);
}

void ReadModel::take(const storage::JournalBatch::ExperimentDeletion& deletion) { forget(deletion.experiment_id); }

void ReadModel::forget(std::uint64_t experiment_id) {
  auto it = experiments_.find(experiment_id);
  if (it == experiments_.end()) return;
  for (std::uint64_t trial_id : it->second.trial_ids) {
    trials_.erase(trial_id);
    ended_trials_.erase(trial_id);
  }
  experiments_.erase(it);
  changed(nullptr);
}

bool ReadModel::invalidates(const storage::JournalBatch::MetricsDeletion& deletion) const {
  const auto* marks = marks_of(deletion.trial_id);
  if (marks == nullptr) return false;
  const auto after = deletion.after_batches;
  return marks->best_batches > after || marks->latest_training.value_or(0) > after ||
         marks->latest_validation.value_or(0) > after;
}

void ReadModel::replace_metrics(std::uint64_t trial_id, const std::vector<storage::MetricRecord>& reports) {
  if (!knows_trial(trial_id)) return;
  auto& entry = open_trial(trial_id);
  entry.summary.best_validation.reset();
  entry.summary.latest_training.clear();
  entry.summary.latest_validation.clear();
  entry.marks = {};
  for (const auto& report : reports) take(report);
  auto* experiment = experiment_of(entry);
  if (experiment != nullptr) recompute_best(*experiment);
  changed(experiment);
}

void ReadModel::offer_best(ExperimentEntry& experiment, std::uint64_t id, std::optional<double> candidate) {
  auto& best = experiment.summary.best;
  if (!candidate) return;
  if (!best || better(*candidate, best->metric, experiment.summary.smaller_is_better) ||
      (*candidate == best->metric && id < best->trial_id))
    best = wire::BestTrial{.metric = *candidate, .trial_id = id};
}

void ReadModel::recompute_best(ExperimentEntry& experiment) {
  experiment.summary.best.reset();
  for (std::uint64_t id : experiment.trial_ids) {
    auto live = trials_.find(id);
    offer_best(experiment, id,
               live != trials_.end() ? live->second.summary.best_validation : ended_trials_.at(id).best_validation);
  }
}

ReadModel::TrialEntry& ReadModel::open_trial(std::uint64_t id) {
  touched_.push_back(id);
  auto ended = ended_trials_.find(id);
  if (ended == ended_trials_.end()) return trials_[id];
  auto& entry = trials_[id];
  entry = {.summary = wire::unpack<wire::TrialSummary>(ended->second.packed_summary).value(),
           .marks = ended->second.marks};
  ended_trials_.erase(ended);
  return entry;
}

void ReadModel::settle_touched() {
  for (std::uint64_t id : touched_) {
    auto it = trials_.find(id);
    if (it == trials_.end() || !is_terminal(it->second.summary.state)) continue;
    const auto& [summary, marks] = it->second;
    ended_trials_[id] = {.packed_summary = wire::pack(summary), .best_validation = summary.best_validation, .marks = marks};
    trials_.erase(it);
  }
  touched_.clear();
}

wire::TrialSummary ReadModel::summary_of_trial(std::uint64_t id) const {
  auto live = trials_.find(id);
  if (live != trials_.end()) return live->second.summary;
  return wire::unpack<wire::TrialSummary>(ended_trials_.at(id).packed_summary).value();  // packed by settle_touched
}

const ReadModel::ReportMarks* ReadModel::marks_of(std::uint64_t id) const {
  if (auto live = trials_.find(id); live != trials_.end()) return &live->second.marks;
  if (auto ended = ended_trials_.find(id); ended != ended_trials_.end()) return &ended->second.marks;
  return nullptr;
}

ReadModel::ExperimentEntry* ReadModel::experiment_of(const TrialEntry& trial) {
  auto it = experiments_.find(trial.summary.experiment_id);
  return it == experiments_.end() ? nullptr : &it->second;
}

wire::ExperimentSummary ReadModel::summary_of(const ExperimentEntry& experiment) const {
  auto summary = experiment.summary;
  summary.num_trials = static_cast<std::uint32_t>(experiment.trial_ids.size());
  for (const auto& [state, count] : experiment.trial_states)
    if (count > 0) summary.trial_states.push_back({.state = state, .count = count});
  return summary;
}

wire::ExperimentList ReadModel::experiments(bool include_archived) const {
  std::shared_lock lock(mutex_);
  wire::ExperimentList list;
  for (const auto& [id, experiment] : experiments_)
    if (include_archived || !experiment.summary.archived) list.experiments.push_back(summary_of(experiment));
  return list;
}

Result<wire::ExperimentDetail> ReadModel::experiment(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  auto it = experiments_.find(id);
  if (it == experiments_.end()) return fail(unknown("experiment", id));
  const auto& experiment = it->second;
  wire::ExperimentDetail detail{.summary = summary_of(experiment),
                                .description = experiment.description,
                                .config = experiment.config_yaml,
                                .trials = {}};
  detail.trials.reserve(experiment.trial_ids.size());
  for (std::uint64_t trial_id : experiment.trial_ids) detail.trials.push_back(summary_of_trial(trial_id));
  return detail;
}

Result<wire::TrialList> ReadModel::trials(std::uint64_t experiment_id) const {
  std::shared_lock lock(mutex_);
  if (experiment_id != 0 && !experiments_.contains(experiment_id)) return fail(unknown("experiment", experiment_id));
  wire::TrialList list;
  for (const auto& [id, experiment] : experiments_) {
    if (experiment_id != 0 && id != experiment_id) continue;
    for (std::uint64_t trial_id : experiment.trial_ids) list.trials.push_back(summary_of_trial(trial_id));
  }
  return list;
}

std::uint64_t ReadModel::version(std::uint64_t experiment_id) const {
  std::shared_lock lock(mutex_);
  if (experiment_id == 0) return changes_;
  auto it = experiments_.find(experiment_id);
  return it == experiments_.end() ? 0 : it->second.version;
}

Result<wire::TrialSummary> ReadModel::trial(std::uint64_t id) const {
  std::shared_lock lock(mutex_);
  if (!knows_trial(id)) return fail(unknown("trial", id));
  return summary_of_trial(id);
}

Result<std::shared_ptr<const ReadModel>> follow_journal(storage::Journal& journal) {
  const auto started = std::chrono::steady_clock::now();
  auto loaded = ReadModel::load(journal);
  if (!loaded) return fail(loaded.error());
  const auto experiments = (*loaded)->experiments(true).experiments;
  std::size_t trials = 0;
  for (const auto& e : experiments) trials += e.num_trials;
  spdlog::info("query summaries of {} experiments and {} trials read from the journal in {} ms", experiments.size(), trials,
               std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count());
  std::shared_ptr<ReadModel> model = std::move(*loaded);
  journal.observe_commits([model, &journal](const storage::JournalBatch& batch) {
    auto applied = model->apply(batch, [&journal](std::uint64_t trial_id) { return journal.metrics(trial_id); });
    if (!applied) spdlog::error("the query summaries missed a trial's re-read metrics: {}", applied.error().message);
  });
  return std::shared_ptr<const ReadModel>(std::move(model));
}

}  // namespace volador::master
