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

Result<std::unique_ptr<ReadModel>> ReadModel::load(const storage::Journal& journal, std::optional<SummarySpill> spill) {
  auto model = std::make_unique<ReadModel>();
  model->spill_ = std::move(spill);
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
      model->pack_opened_trials();
    }
    model->spill_ended_experiments();
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
    settle();
  }
  // Read outside the lock: observers run on the journal's one writer thread, so no batch comes meanwhile.
  for (std::uint64_t trial_id : stale) {
    auto reports = history(trial_id);
    if (!reports) return fail(reports.error());
    std::unique_lock lock(mutex_);
    replace_metrics(trial_id, *reports);
    settle();
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
  settling_experiments_.insert(record.id);
}

void ReadModel::take(const storage::TrialRecord& record) {
  auto found = experiments_.find(record.experiment_id);
  auto* experiment = found == experiments_.end() ? nullptr : &found->second;
  const bool added = !knows_trial(record.id, experiment);
  auto* trial = added ? &add_trial(record.id) : open_trial(record.id, experiment);
  if (trial == nullptr) return;
  auto& s = trial->summary;
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
  auto* trial = open_trial(record.trial_id, nullptr);
  if (trial == nullptr) return;
  auto& entry = *trial;
  auto& s = entry.summary;
  const bool training = record.kind == MetricKind::training;
  auto& latest = training ? entry.latest_training : entry.latest_validation;
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
  if (!best || better(v, *best, e.smaller_is_better) || (v == *best && record.batches < entry.best_batches)) {
    s.best_validation = v;
    entry.best_batches = record.batches;
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
  if (it->second.spilled) spill_->remove(experiment_id);
  experiments_.erase(it);
  changed(nullptr);
}

bool ReadModel::invalidates(const storage::JournalBatch::MetricsDeletion& deletion) const {
  const auto id = deletion.trial_id;
  if (!trials_.contains(id) && !ended_trials_.contains(id)) return spilled_experiment_of(id, nullptr).has_value();  // re-read
  const auto kept = kept_in_memory(id);
  const auto after = deletion.after_batches;
  return kept.best_batches > after || kept.latest_training.value_or(0) > after || kept.latest_validation.value_or(0) > after;
}

void ReadModel::replace_metrics(std::uint64_t trial_id, const std::vector<storage::MetricRecord>& reports) {
  auto* trial = open_trial(trial_id, nullptr);
  if (trial == nullptr) return;
  auto& entry = *trial;
  entry = KeptTrial{.summary = std::move(entry.summary)};
  entry.summary.best_validation.reset();
  entry.summary.latest_training.clear();
  entry.summary.latest_validation.clear();
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
  for (std::uint64_t id : experiment.trial_ids) offer_best(experiment, id, kept_in_memory(id).summary.best_validation);
}

ReadModel::KeptTrial* ReadModel::open_trial(std::uint64_t id, ExperimentEntry* owner) {
  if (auto live = trials_.find(id); live != trials_.end()) {
    opened_trials_.push_back(id);
    return &live->second;
  }
  if (!ended_trials_.contains(id)) {
    const auto spilled = spilled_experiment_of(id, owner);
    if (!spilled || !unspill(*spilled)) return nullptr;
  }
  auto ended = ended_trials_.find(id);
  auto& entry = add_trial(id);
  entry = wire::unpack<KeptTrial>(ended->second).value();  // packed by pack_opened_trials
  ended_trials_.erase(ended);
  return &entry;
}

ReadModel::KeptTrial& ReadModel::add_trial(std::uint64_t id) {
  opened_trials_.push_back(id);
  return trials_[id];
}

void ReadModel::pack_opened_trials() {
  for (std::uint64_t id : opened_trials_) {
    auto it = trials_.find(id);
    if (it == trials_.end() || !is_terminal(it->second.summary.state)) continue;
    settling_experiments_.insert(it->second.summary.experiment_id);
    ended_trials_[id] = wire::pack(it->second);
    trials_.erase(it);
  }
  opened_trials_.clear();
}

void ReadModel::spill_ended_experiments() {
  for (std::uint64_t experiment_id : settling_experiments_) {
    auto it = experiments_.find(experiment_id);
    if (!spill_ || it == experiments_.end() || it->second.spilled) continue;
    auto& experiment = it->second;
    if (!is_terminal(experiment.summary.state)) continue;
    std::vector<std::string> packed;
    packed.reserve(experiment.trial_ids.size());
    for (std::uint64_t id : experiment.trial_ids) {
      auto ended = ended_trials_.find(id);
      if (ended == ended_trials_.end()) break;  // a trial still running
      packed.push_back(ended->second);
    }
    if (packed.size() != experiment.trial_ids.size()) continue;
    if (auto written = spill_->write(experiment_id, packed); !written) {
      spdlog::warn("the query summaries of experiment {} stay in memory: {}", experiment_id, written.error().message);
      continue;
    }
    for (std::uint64_t id : experiment.trial_ids) ended_trials_.erase(id);
    experiment.spilled = true;
  }
  settling_experiments_.clear();
}

bool ReadModel::unspill(std::uint64_t experiment_id) {
  auto& experiment = experiments_.at(experiment_id);
  auto packed = spill_->read(experiment_id);
  if (packed && packed->size() != experiment.trial_ids.size())
    packed = fail(Error::corruption("it holds " + std::to_string(packed->size()) + " trials, not " +
                                    std::to_string(experiment.trial_ids.size())));
  if (!packed) {
    spdlog::error("a change to experiment {}'s trials is lost to the query summaries: {}", experiment_id,
                  packed.error().message);
    return false;
  }
  for (std::size_t i = 0; i < packed->size(); ++i) ended_trials_.emplace(experiment.trial_ids[i], std::move((*packed)[i]));
  experiment.spilled = false;
  spill_->remove(experiment_id);
  settling_experiments_.insert(experiment_id);
  return true;
}

bool ReadModel::knows_trial(std::uint64_t id, const ExperimentEntry* owner) const {
  return trials_.contains(id) || ended_trials_.contains(id) || spilled_experiment_of(id, owner).has_value();
}

std::optional<std::uint64_t> ReadModel::spilled_experiment_of(std::uint64_t trial_id, const ExperimentEntry* owner) const {
  auto lists = [trial_id](const ExperimentEntry& experiment) {
    return experiment.spilled && std::binary_search(experiment.trial_ids.begin(), experiment.trial_ids.end(), trial_id);
  };
  if (owner != nullptr) return lists(*owner) ? std::optional(owner->summary.id) : std::nullopt;
  for (const auto& [id, experiment] : experiments_)
    if (lists(experiment)) return id;
  return std::nullopt;
}

Result<std::vector<ReadModel::KeptTrial>> ReadModel::kept_trials_of(std::uint64_t experiment_id,
                                                                    const ExperimentEntry& experiment) const {
  std::vector<KeptTrial> kept;
  kept.reserve(experiment.trial_ids.size());
  if (!experiment.spilled) {
    for (std::uint64_t id : experiment.trial_ids) kept.push_back(kept_in_memory(id));
    return kept;
  }
  auto packed = spill_->read(experiment_id);
  if (!packed) return fail(packed.error());
  for (const auto& trial : *packed) {
    auto unpacked = wire::unpack<KeptTrial>(trial);
    if (!unpacked) return fail(unpacked.error());
    kept.push_back(std::move(*unpacked));
  }
  return kept;
}

ReadModel::KeptTrial ReadModel::kept_in_memory(std::uint64_t id) const {
  if (auto live = trials_.find(id); live != trials_.end()) return live->second;
  return wire::unpack<KeptTrial>(ended_trials_.at(id)).value();  // packed by pack_opened_trials
}

ReadModel::ExperimentEntry* ReadModel::experiment_of(const KeptTrial& trial) {
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
  auto kept = kept_trials_of(id, experiment);
  if (!kept) return fail(kept.error());
  detail.trials.reserve(kept->size());
  for (auto& trial : *kept) detail.trials.push_back(std::move(trial.summary));
  return detail;
}

Result<wire::TrialList> ReadModel::trials(std::uint64_t experiment_id) const {
  std::shared_lock lock(mutex_);
  if (experiment_id != 0 && !experiments_.contains(experiment_id)) return fail(unknown("experiment", experiment_id));
  wire::TrialList list;
  for (const auto& [id, experiment] : experiments_) {
    if (experiment_id != 0 && id != experiment_id) continue;
    auto kept = kept_trials_of(id, experiment);
    if (!kept) return fail(kept.error());
    for (auto& trial : *kept) list.trials.push_back(std::move(trial.summary));
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
  if (trials_.contains(id) || ended_trials_.contains(id)) return kept_in_memory(id).summary;
  const auto experiment_id = spilled_experiment_of(id, nullptr);
  if (!experiment_id) return fail(unknown("trial", id));
  const auto& ids = experiments_.at(*experiment_id).trial_ids;
  const auto index = static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  auto packed = spill_->read_one(*experiment_id, index);
  if (!packed) return fail(packed.error());
  auto kept = wire::unpack<KeptTrial>(*packed);
  if (!kept) return fail(kept.error());
  return std::move(kept->summary);
}

std::size_t ReadModel::trials_in_memory() const {
  std::shared_lock lock(mutex_);
  return trials_.size() + ended_trials_.size();
}

Result<std::shared_ptr<const ReadModel>> follow_journal(storage::Journal& journal, std::optional<SummarySpill> spill) {
  const auto started = std::chrono::steady_clock::now();
  auto loaded = ReadModel::load(journal, std::move(spill));
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
