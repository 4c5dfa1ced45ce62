#pragma once
// The read model of the master's queries: a summary of every experiment and
// trial — what `experiment list`, `experiment describe` and `trial list` show
// (states, progress, trials by state, best validation of the searcher metric,
// latest metrics, times, owner, workspace, project, labels) — kept current
// from the batches the journal commits, so that answering reads no metric
// history. Built once from the journal at master start (load), then fed the
// journal's committed batches (apply; follow_journal wires both).
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
  [[nodiscard]] static Result<std::unique_ptr<ReadModel>> load(const storage::Journal& journal);

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

 private:
  // What the summaries show of an experiment's config, and what ranks its trials.
  struct ExperimentEntry {
    wire::ExperimentSummary summary;  // best and archived kept current; counts filled in on reading
    std::string description;
    std::string config_yaml;
    std::vector<std::uint64_t> trial_ids;  // ascending
    std::map<RunState, std::uint32_t> trial_states;
    std::uint64_t version = 0;  // changes_ when it last changed
    bool user_metadata = false;  // description and labels set by a user (`experiment set`), not the config's
  };
  // Which reports a trial's summary shows: what a later report or a deletion is weighed against.
  struct ReportMarks {
    std::uint64_t best_batches = 0;  // the fewest batches at which the best was reported
    std::optional<std::uint64_t> latest_training;  // the batches of the latest report of each kind
    std::optional<std::uint64_t> latest_validation;
  };
  // A trial not ended yet.
  struct TrialEntry {
    wire::TrialSummary summary;  // best_validation and latest_* kept current
    ReportMarks marks;
  };
  // An ended trial, kept packed (wire::pack): about a third of a TrialEntry's memory, since
  // a long search holds thousands of them and they change only when a late report comes.
  struct EndedTrial {
    std::string packed_summary;
    std::optional<double> best_validation;  // the summary's, for weighing the experiment's best
    ReportMarks marks;
  };

  void take(const storage::ExperimentRecord& record);
  void take(const storage::TrialRecord& record);
  void take(const storage::MetricRecord& record);
  void take(const storage::ExperimentMetadataRecord& record);
  void take(const storage::JournalBatch::ExperimentDeletion& deletion);
  // The entry of trial `id` to change, unpacked if it had ended (a new one if unknown);
  // settle_touched() packs it again once ended.
  TrialEntry& open_trial(std::uint64_t id);
  // Packs each trial opened since the last call that has ended.
  void settle_touched();
  [[nodiscard]] bool knows_trial(std::uint64_t id) const { return trials_.contains(id) || ended_trials_.contains(id); }
  // Trial `id`'s summary; it must be known.
  [[nodiscard]] wire::TrialSummary summary_of_trial(std::uint64_t id) const;
  [[nodiscard]] const ReportMarks* marks_of(std::uint64_t id) const;
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
  [[nodiscard]] ExperimentEntry* experiment_of(const TrialEntry& trial);
  // Marks a change of `experiment` (nullptr: of a trial that no experiment lists).
  void changed(ExperimentEntry* experiment) {
    ++changes_;
    if (experiment != nullptr) experiment->version = changes_;
  }

  mutable std::shared_mutex mutex_;
  std::map<std::uint64_t, ExperimentEntry> experiments_;
  std::unordered_map<std::uint64_t, TrialEntry> trials_;  // not ended, or opened since settle_touched()
  std::unordered_map<std::uint64_t, EndedTrial> ended_trials_;
  std::vector<std::uint64_t> touched_;  // opened since settle_touched()
  std::uint64_t changes_ = 0;
};

// Loads the read model of `journal` and keeps it current from the journal's
// commits (Journal::observe_commits; a failed re-read of a trial's reports is
// logged). Call it before anything commits; `journal` must outlive the
// model's feeding (the journal owns the observer that feeds it).
[[nodiscard]] Result<std::shared_ptr<const ReadModel>> follow_journal(storage::Journal& journal);

}  // namespace volador::master
