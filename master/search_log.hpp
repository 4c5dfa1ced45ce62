#pragma once
// An experiment's search as the journal keeps it: the searcher, what the
// experiment asked of each trial (SearchProgress), and what to journal after
// each event. Not the whole state every time: one small SearchEventRecord per
// event (what the searcher was told, the progress it changed), and now and
// then a snapshot of the whole state that replaces the events it covers.
// Recovery loads the latest snapshot into a fresh searcher and replays the
// later events through it in order: searchers are deterministic given their
// state and the same calls, so the replayed search equals the live one.
// Pure: no actors, no I/O (it only adds operations to a JournalBatch).

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/search/searcher.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

using storage::TrialProgress;  // schemas/journal.capnp

// The experiment's side of its search, beside the searcher's own state.
struct SearchProgress {
  std::map<search::RequestId, TrialProgress> trials;  // each with its request_id
  bool shutdown = false;                               // the searcher asked for Shutdown
  bool search_failed = false;                          // ... as a failure
  friend bool operator==(const SearchProgress&, const SearchProgress&) = default;
};

// When the whole state is journaled again: once the events since the last
// snapshot reach max(min_events, the number of trials), so its cost, which
// grows with the trials, is spread over as many events (O(1) per event), and
// a recovery replays at most that many events.
struct SnapshotPolicy {
  std::uint64_t min_events = 64;
};

class SearchLog {
 public:
  // A new search (initial_operations() not yet called); its first journal()
  // writes a snapshot.
  explicit SearchLog(std::shared_ptr<search::Searcher> searcher, SnapshotPolicy policy = {});

  // Continues the search `journaled` (Journal::search_log): loads its
  // snapshot into `searcher`, fresh from the experiment's config and seed,
  // and replays the events after it. corruption when the snapshot (that of
  // this version or of earlier ones: the whole state, no events) does not
  // decode or the searcher refuses it.
  [[nodiscard]] static Result<SearchLog> recover(std::shared_ptr<search::Searcher> searcher,
                                                 const storage::SearchLogRecords& journaled, SnapshotPolicy policy = {});

  // The searcher's calls (runtime/search/searcher.hpp), recorded for the next
  // journal(). trial_created also starts the trial's progress;
  // validation_completed sets its `validated`.
  search::Operations initial_operations();
  search::Operations trial_created(search::RequestId request);
  search::Operations validation_completed(search::RequestId request, double metric, std::uint64_t batches);
  search::Operations trial_closed(search::RequestId request);
  search::Operations trial_exited_early(search::RequestId request, search::ExitReason reason);

  // The experiment's own changes, recorded likewise. Those for a request
  // without progress (never created) change nothing.
  void asked_to_validate(search::RequestId request, std::uint64_t batches);  // sent ValidateAfter
  void asked_to_close(search::RequestId request);                            // sent CloseTrial
  void trial_ended(search::RequestId request);
  void shut_down(bool failure);

  [[nodiscard]] const SearchProgress& progress() const { return progress_; }
  // The trial's progress; nullptr for a request never created.
  [[nodiscard]] const TrialProgress* trial(search::RequestId request) const;
  [[nodiscard]] const search::Searcher& searcher() const { return *searcher_; }

  // Adds to `batch` what journals the calls and changes since the last
  // journal(): a snapshot of the whole state when one is due (SnapshotPolicy;
  // always the first time), else one event record (none when nothing
  // happened). Commit `batch` with the records that these events caused.
  void journal(storage::JournalBatch& batch, std::uint64_t experiment_id);

  // The batch of the last journal() was not written: the next journal()
  // writes a snapshot, which covers what that batch lost.
  void journal_lost() { snapshotted_ = false; }

  // The whole state as journaled: the searcher's save_state() and the
  // progress, in the layout of earlier versions' search state.
  [[nodiscard]] nlohmann::json snapshot() const;

 private:
  // Calls the searcher as `input` says.
  search::Operations tell(const storage::SearcherInput& input);
  // Records `input` for the next journal() and tells the searcher.
  search::Operations record(storage::SearcherInput input);
  // The trial's progress to change, marked changed; nullptr for a request never created.
  TrialProgress* change(search::RequestId request);
  // Applies a journaled event: its inputs to the searcher, its progress over ours.
  void replay(const storage::SearchEventRecord& event);
  [[nodiscard]] bool snapshot_due() const;

  std::shared_ptr<search::Searcher> searcher_;
  SnapshotPolicy policy_;
  SearchProgress progress_;
  bool snapshotted_ = false;
  std::uint64_t events_since_snapshot_ = 0;  // journaled after the last snapshot
  std::vector<storage::SearcherInput> inputs_;  // since the last journal()
  std::set<search::RequestId> changed_;         // likewise
  bool shutdown_changed_ = false;
};

}  // namespace volador::master
