#pragma once
// Bookkeeping every searcher shares: request ids in creation order, which
// trials are alive (from CreateTrial until closed or exited), the concurrency
// cap, the trial budget, and when the search is over.

#include <cstdint>
#include <functional>
#include <optional>
#include <set>

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
  // Marks an alive trial finished; false when `id` is not alive.
  bool finish(RequestId id, bool errored);
  // Allows one more trial (one that replaces a trial that could not run).
  void add_to_budget();
  // Shutdown, once, when every budgeted trial was created and has finished;
  // a failure when every trial errored.
  std::optional<Shutdown> take_shutdown();

  [[nodiscard]] bool is_alive(RequestId id) const { return alive_.contains(id); }
  // Finished trials over the budget, in [0, 1].
  [[nodiscard]] double progress() const;

  [[nodiscard]] nlohmann::json save() const;
  Status load(const nlohmann::json& state);

 private:
  [[nodiscard]] bool may_create() const;

  std::uint64_t budget_;
  std::uint32_t max_concurrent_;
  std::uint64_t created_ = 0;
  std::uint64_t errored_ = 0;
  std::set<RequestId> alive_;
  bool shut_down_ = false;
};

}  // namespace volador::search
