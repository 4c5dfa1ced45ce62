#pragma once
// Bookkeeping every searcher shares: request ids in creation order, which
// trials are alive (from CreateTrial until closed or exited) with the length
// each was last asked to train to and whether it is being closed, the
// concurrency cap, the trial budget, and when the search is over.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/search/searcher.hpp"

namespace volador::search {

class TrialBook {
 public:
  // `budget` trials in all; at most `max_concurrent` alive at once (0 = no cap).
  TrialBook(std::uint64_t budget, std::uint32_t max_concurrent);

  // CreateTrial operations for as many new trials as the budget and cap allow;
  // `make` builds the operation for each fresh id, in id order.
  Operations create_trials(const std::function<CreateTrial(RequestId)>& make);
  // ValidateAfter for an open trial, remembered as its target.
  ValidateAfter train(RequestId id, std::uint64_t batches);
  // CloseTrial for an open trial, which stops being open.
  CloseTrial close(RequestId id, bool stopped_early);
  // Marks an alive trial finished; false when `id` is not alive.
  bool finish(RequestId id, bool errored);
  // Allows one more trial (one that replaces a trial that could not run).
  void add_to_budget();
  // Ends the search early: no more trials are created; the Shutdown (once
  // every alive trial finished) reports `failure`. Open trials stay open: the
  // caller closes them.
  void stop_creating(bool failure);
  // Shutdown, once, when every budgeted trial was created and has finished;
  // a failure when every trial errored or stop_creating(true) was called.
  std::optional<Shutdown> take_shutdown();

  [[nodiscard]] bool is_alive(RequestId id) const { return alive_.contains(id); }
  // Alive and not being closed.
  [[nodiscard]] bool is_open(RequestId id) const;
  // The last ValidateAfter target of an alive trial (0 before the first).
  [[nodiscard]] std::uint64_t target(RequestId id) const;
  // Open trials, in id order.
  [[nodiscard]] std::vector<RequestId> open_trials() const;
  [[nodiscard]] std::uint64_t errored() const { return errored_; }
  // Finished trials over the budget, in [0, 1].
  [[nodiscard]] double progress() const;

  [[nodiscard]] nlohmann::json save() const;
  Status load(const nlohmann::json& state);

 private:
  struct Alive {
    std::uint64_t target = 0;
    bool closing = false;
  };
  [[nodiscard]] bool may_create() const;

  std::uint64_t budget_;
  std::uint32_t max_concurrent_;
  std::uint64_t created_ = 0;
  std::uint64_t errored_ = 0;
  std::map<RequestId, Alive> alive_;
  bool gave_up_ = false;
  bool shut_down_ = false;
};

}  // namespace volador::search
