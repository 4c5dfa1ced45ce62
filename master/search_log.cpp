#include "master/search_log.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace volador::master {
namespace {

using storage::SearcherInput;
using storage::SearcherInputKind;

SearcherInputKind exit_kind(search::ExitReason reason) {
  switch (reason) {
    case search::ExitReason::errored: return SearcherInputKind::trial_errored;
    case search::ExitReason::user_canceled: return SearcherInputKind::trial_canceled;
    case search::ExitReason::invalid_hparams: return SearcherInputKind::trial_hparams_invalid;
  }
  return SearcherInputKind::trial_errored;
}

SearcherInput input_of(SearcherInputKind kind, search::RequestId request) {
  return {.kind = kind, .request_id = request, .metric = 0, .batches = 0};
}

nlohmann::json progress_json(const TrialProgress& t) {
  return {{"target", t.target}, {"closing", t.closing}, {"validated", t.validated}, {"ended", t.ended}};
}

// The progress of a snapshot's "trials" object; throws nlohmann::json::exception when malformed.
SearchProgress progress_from(const nlohmann::json& snapshot) {
  SearchProgress progress{.trials = {},
                          .shutdown = snapshot.at("shutdown").get<bool>(),
                          .search_failed = snapshot.at("search_failed").get<bool>()};
  for (const auto& [request, t] : snapshot.at("trials").items()) {
    const search::RequestId id = std::stoull(request);
    progress.trials[id] = {.request_id = id,
                           .target = t.at("target").get<std::uint64_t>(),
                           .closing = t.at("closing").get<bool>(),
                           .validated = t.at("validated").get<std::uint64_t>(),
                           .ended = t.at("ended").get<bool>()};
  }
  return progress;
}

}  // namespace

SearchLog::SearchLog(std::shared_ptr<search::Searcher> searcher, SnapshotPolicy policy)
    : searcher_(std::move(searcher)), policy_(policy) {}

Result<SearchLog> SearchLog::recover(std::shared_ptr<search::Searcher> searcher,
                                     const storage::SearchLogRecords& journaled, SnapshotPolicy policy) {
  SearchLog log(std::move(searcher), policy);
  try {
    if (auto loaded = log.searcher_->load_state(journaled.snapshot.at("searcher")); !loaded)
      return fail(Error::corruption("the journaled searcher state is refused: " + loaded.error().message));
    log.progress_ = progress_from(journaled.snapshot);
  } catch (const std::exception& e) {  // nlohmann::json's, and std::stoull's on a bad request id
    return fail(Error::corruption(std::string("the journaled search state does not decode: ") + e.what()));
  }
  for (const auto& event : journaled.events) log.replay(event);
  log.snapshotted_ = true;
  log.events_since_snapshot_ = journaled.events.size();
  return log;
}

search::Operations SearchLog::tell(const SearcherInput& input) {
  switch (input.kind) {
    case SearcherInputKind::trial_created: return searcher_->on_trial_created(input.request_id);
    case SearcherInputKind::validation_completed:
      return searcher_->on_validation_completed(input.request_id, input.metric, input.batches);
    case SearcherInputKind::trial_closed: return searcher_->on_trial_closed(input.request_id);
    case SearcherInputKind::trial_errored:
      return searcher_->on_trial_exited_early(input.request_id, search::ExitReason::errored);
    case SearcherInputKind::trial_canceled:
      return searcher_->on_trial_exited_early(input.request_id, search::ExitReason::user_canceled);
    case SearcherInputKind::trial_hparams_invalid:
      return searcher_->on_trial_exited_early(input.request_id, search::ExitReason::invalid_hparams);
  }
  return {};
}

search::Operations SearchLog::record(SearcherInput input) {
  inputs_.push_back(input);
  return tell(input);
}

// Nothing to record: a new search's first journal() is a snapshot, which covers it.
search::Operations SearchLog::initial_operations() { return searcher_->initial_operations(); }

search::Operations SearchLog::trial_created(search::RequestId request) {
  progress_.trials[request] = {.request_id = request, .target = 0, .closing = false, .validated = 0, .ended = false};
  changed_.insert(request);
  return record(input_of(SearcherInputKind::trial_created, request));
}

search::Operations SearchLog::validation_completed(search::RequestId request, double metric, std::uint64_t batches) {
  if (auto* trial = change(request)) trial->validated = batches;
  return record({.kind = SearcherInputKind::validation_completed, .request_id = request, .metric = metric,
                 .batches = batches});
}

search::Operations SearchLog::trial_closed(search::RequestId request) {
  return record(input_of(SearcherInputKind::trial_closed, request));
}

search::Operations SearchLog::trial_exited_early(search::RequestId request, search::ExitReason reason) {
  return record(input_of(exit_kind(reason), request));
}

void SearchLog::asked_to_validate(search::RequestId request, std::uint64_t batches) {
  if (auto* trial = change(request)) trial->target = batches;
}

void SearchLog::asked_to_close(search::RequestId request) {
  if (auto* trial = change(request)) trial->closing = true;
}

void SearchLog::trial_ended(search::RequestId request) {
  if (auto* trial = change(request)) trial->ended = true;
}

void SearchLog::shut_down(bool failure) {
  progress_.shutdown = true;
  progress_.search_failed = failure;
  shutdown_changed_ = true;
}

const TrialProgress* SearchLog::trial(search::RequestId request) const {
  auto it = progress_.trials.find(request);
  return it == progress_.trials.end() ? nullptr : &it->second;
}

TrialProgress* SearchLog::change(search::RequestId request) {
  auto it = progress_.trials.find(request);
  if (it == progress_.trials.end()) return nullptr;
  changed_.insert(request);
  return &it->second;
}

void SearchLog::replay(const storage::SearchEventRecord& event) {
  for (const auto& input : event.inputs) tell(input);
  for (const auto& trial : event.trials) progress_.trials[trial.request_id] = trial;
  progress_.shutdown = event.shutdown;
  progress_.search_failed = event.search_failed;
}

bool SearchLog::snapshot_due() const {
  const std::uint64_t trials = progress_.trials.size();
  return !snapshotted_ || events_since_snapshot_ + 1 >= std::max(policy_.min_events, trials);
}

void SearchLog::journal(storage::JournalBatch& batch, std::uint64_t experiment_id) {
  const bool happened = !inputs_.empty() || !changed_.empty() || shutdown_changed_;
  if (snapshot_due() && (happened || !snapshotted_)) {
    batch.put_searcher_state(experiment_id, snapshot());
    snapshotted_ = true;
    events_since_snapshot_ = 0;
  } else if (happened) {
    storage::SearchEventRecord event{
        .inputs = std::move(inputs_), .trials = {}, .shutdown = progress_.shutdown, .search_failed = progress_.search_failed};
    for (search::RequestId request : changed_) event.trials.push_back(progress_.trials.at(request));
    batch.append_search_event(experiment_id, std::move(event));
    ++events_since_snapshot_;
  }
  inputs_.clear();
  changed_.clear();
  shutdown_changed_ = false;
}

nlohmann::json SearchLog::snapshot() const {
  nlohmann::json trials = nlohmann::json::object();
  for (const auto& [request, trial] : progress_.trials) trials[std::to_string(request)] = progress_json(trial);
  return {{"searcher", searcher_->save_state()},
          {"trials", std::move(trials)},
          {"shutdown", progress_.shutdown},
          {"search_failed", progress_.search_failed}};
}

}  // namespace volador::master
