#pragma once
// The read model of the master's queries: a summary of every experiment and
// trial — what `experiment list`, `experiment describe` and `trial list` show
// (states, progress, trials by state, best validation of the searcher metric,
// latest metrics, times, owner, workspace, project, labels) — kept current
// from the batches the journal commits, so that answering reads no metric
// history. Built once from the journal at master start (load), then fed the
// journal's committed batches (apply; follow_journal wires both). Running
// trials are held whole, ended ones packed, and the trials of ended
// experiments in files (SummarySpill), read back on a query.
// Thread-safe: batches and queries may come from any thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "master/summary_spill.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// A trial's metric reports as the journal holds them now (Journal::metrics).
using MetricHistory = std::function<Result<std::vector<storage::MetricRecord>>(std::uint64_t trial_id)>;

class ReadModel {
 public:
  // The model of every experiment, trial and metric report in `journal`;
  // its read errors.
  // The trials of ended experiments go to `spill`'s files (none: they stay in memory).
  [[nodiscard]] static Result<std::unique_ptr<ReadModel>> load(const storage::Journal& journal,
                                                               std::optional<SummarySpill> spill = std::nullopt);

  // Takes in a batch the journal has written (records the model does not
  // show are skipped, as are reports of trials it has no record of: a trial
  // is journaled before it runs). A metrics deletion that removes a trial's best or
  // latest report makes it read that trial's reports anew from `history`,
  // which must then show the journal after the batch; its error leaves that
  // trial's metrics as they were and is returned.
  Status apply(const storage::JournalBatch& batch, const MetricHistory& history);

  // Every experiment by id; archived ones only with `include_archived`.
  [[nodiscard]] wire::ExperimentList experiments(bool include_archived) const;
  // One experiment with its trials by id; not_found when unknown.
  [[nodiscard]] Result<wire::ExperimentDetail> experiment(std::uint64_t id) const;
  // The trials of experiment `experiment_id` by id, or (0) of every
  // experiment, experiment by experiment; not_found for an unknown experiment.
  [[nodiscard]] Result<wire::TrialList> trials(std::uint64_t experiment_id) const;
  // One trial; not_found when unknown.
  [[nodiscard]] Result<wire::TrialSummary> trial(std::uint64_t id) const;
  // A number that grows whenever experiment `experiment_id` or one of its
  // trials changes in what the model shows (0: whenever anything does); 0
  // for an unknown experiment. Equal numbers: equal answers, so an answer
  // may be kept under the number read before it was made.
  [[nodiscard]] std::uint64_t version(std::uint64_t experiment_id) const;
  // How many trials' summaries are held in memory (those of ended experiments are in the spill's files).
  [[nodiscard]] std::size_t trials_in_memory() const;

 private:
  using KeptTrial = wire::KeptTrialSummary;
  // What the summaries show of an experiment's config, and what ranks its trials.
  struct ExperimentEntry {
    wire::ExperimentSummary summary;  // best and archived kept current; counts filled in on reading
    std::string description;
    std::string config_yaml;
    std::vector<std::uint64_t> trial_ids;  // ascending
    std::map<RunState, std::uint32_t> trial_states;
    std::uint64_t version = 0;  // changes_ when it last changed
    bool user_metadata = false;  // description and labels set by a user (`experiment set`), not the config's
    bool spilled = false;  // its trials are in spill_'s file, not in memory
  };

  void take(const storage::ExperimentRecord& record);
  void take(const storage::TrialRecord& record);
  void take(const storage::MetricRecord& record);
  void take(const storage::ExperimentMetadataRecord& record);
  void take(const storage::JournalBatch::ExperimentDeletion& deletion);
  // Drops an experiment being deleted or deleted, and its trials.
  void forget(std::uint64_t experiment_id);
  // True when the deletion removes the trial's best or latest report.
  [[nodiscard]] bool invalidates(const storage::JournalBatch::MetricsDeletion& deletion) const;
  // The trial's metric summary from all its reports, and its experiment's best anew.
  void replace_metrics(std::uint64_t trial_id, const std::vector<storage::MetricRecord>& reports);
  // Whether trial `id`'s best beats its experiment's best (or ties it with a smaller trial id).
  void offer_best(ExperimentEntry& experiment, std::uint64_t id, std::optional<double> best);
  void recompute_best(ExperimentEntry& experiment);
  [[nodiscard]] wire::ExperimentSummary summary_of(const ExperimentEntry& experiment) const;
  [[nodiscard]] ExperimentEntry* experiment_of(const KeptTrial& trial);
  // Marks a change of `experiment` (nullptr: of a trial that no experiment lists).
  void changed(ExperimentEntry* experiment) {
    ++changes_;
    if (experiment != nullptr) experiment->version = changes_;
  }

  // Where the trials live: trials_ while running (and once opened, until
  // settled), ended_trials_ packed once ended, spill_'s file of their
  // experiment once it and all its trials ended.
  //
  // The kept summary of known trial `id` to change (of experiment `owner`
  // when known): unpacked if ended, read back with its experiment's trials
  // if spilled; nullptr when unknown, or when its experiment's file cannot
  // be read (logged). settle() packs and spills it again.
  KeptTrial* open_trial(std::uint64_t id, ExperimentEntry* owner);
  // A new trial's kept summary, empty, opened as open_trial's.
  KeptTrial& add_trial(std::uint64_t id);
  // Packs the trials opened since the last call that have ended.
  void pack_opened_trials();
  // Spills the experiments of the trials packed since the last call (and
  // those whose record changed) that have ended with all their trials.
  void spill_ended_experiments();
  void settle() {
    pack_opened_trials();
    spill_ended_experiments();
  }
  // Reads the trials of a spilled experiment back into ended_trials_; false (logged) when its file cannot be read.
  bool unspill(std::uint64_t experiment_id);
  // Whether trial `id` is known; `owner`, when given, is the only experiment whose spilled trials are looked at.
  [[nodiscard]] bool knows_trial(std::uint64_t id, const ExperimentEntry* owner) const;
  // The spilled experiment (`owner`, or when nullptr any) that lists trial `id`, if one does.
  [[nodiscard]] std::optional<std::uint64_t> spilled_experiment_of(std::uint64_t trial_id,
                                                                   const ExperimentEntry* owner) const;
  // The kept summaries of an experiment's trials, in order (read from spill_ when spilled).
  [[nodiscard]] Result<std::vector<KeptTrial>> kept_trials_of(std::uint64_t experiment_id,
                                                              const ExperimentEntry& experiment) const;
  // The kept summary of a trial held in memory (running or ended); it must be.
  [[nodiscard]] KeptTrial kept_in_memory(std::uint64_t id) const;

  mutable std::shared_mutex mutex_;
  std::map<std::uint64_t, ExperimentEntry> experiments_;
  std::unordered_map<std::uint64_t, KeptTrial> trials_;
  std::unordered_map<std::uint64_t, std::string> ended_trials_;  // wire::pack of their KeptTrial
  std::vector<std::uint64_t> opened_trials_;  // since pack_opened_trials()
  std::set<std::uint64_t> settling_experiments_;  // since spill_ended_experiments()
  std::optional<SummarySpill> spill_;  // none: every trial stays in memory
  std::uint64_t changes_ = 0;
};

// Loads the read model of `journal` and keeps it current from the journal's
// commits (Journal::observe_commits; a failed re-read of a trial's reports is
// logged). Call it before anything commits; `journal` must outlive the
// model's feeding (the journal owns the observer that feeds it).
[[nodiscard]] Result<std::shared_ptr<const ReadModel>> follow_journal(storage::Journal& journal,
                                                                      std::optional<SummarySpill> spill = std::nullopt);

}  // namespace volador::master
