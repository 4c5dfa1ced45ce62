#pragma once
// `experiment continue ID [--config changes.yaml]`: a new experiment that
// trains more the trials of an ended one. Its config is the old one with the
// changes merged as a fork's (typically a longer searcher.max_length); its
// trials are the old experiment's trials that have a live checkpoint, one
// each in trial order, with the same hyperparameters and seed, each starting
// from its source's newest live checkpoint (TrialRecord.warm_start: until it
// has checkpoints of its own, it resumes from there) and trained to the new
// max_length, then closed. The old experiment stays as it was; while a
// continuation has not ended, neither it nor those checkpoints may be deleted.
// No actors: the journal.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/config/experiment_config.hpp"
#include "runtime/core/error.hpp"
#include "runtime/search/searcher.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// The trials experiment `source_id` hands on: for each of its trials with a
// live checkpoint, the newest (none for `source_id` 0). invalid_argument when
// it has not ended or no trial has a checkpoint; not_found for an unknown
// experiment.
Result<std::vector<storage::ContinuedTrial>> continuation_plan(const storage::Journal& journal, std::uint64_t source_id);

// The searcher of an experiment that continues `plan` (one trial per entry,
// in order, trained to the config's max_length, then closed; none replaced),
// or with an empty plan the config's own (search::make_searcher).
Result<std::unique_ptr<search::Searcher>> experiment_searcher(const std::vector<storage::ContinuedTrial>& plan,
                                                              const config::ExperimentConfig& config,
                                                              std::uint32_t experiment_seed);

// What trial `trial` of experiment `experiment` takes from the trial it
// continues: its seed and the checkpoint it starts from (nothing when the
// experiment continues none).
void take_continued_trial(const storage::ExperimentRecord& experiment, storage::TrialRecord& trial);

// Why an unended continuation of `experiment_id` still needs it (naming the
// continuation), when `uuid` is empty; or needs checkpoint `uuid` of it.
// nullopt when none does.
Result<std::optional<Error>> needed_by_continuation(const storage::Journal& journal, std::uint64_t experiment_id,
                                                   std::string_view uuid = {});

}  // namespace volador::master
