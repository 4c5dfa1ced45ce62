#pragma once
// The agent's back-pressure on its workers' output (pure). Each message of a
// worker's output to its trial is answered once the trial journaled its
// lines; at most `limit` messages per rank are unanswered, so a master whose
// disk falls behind queues no more than that per rank. Further output waits
// in the worker's bounded buffer (trial_output::WorkerOutput), which drops
// lines with a marker when full: training never waits for its log.
//
// Each message gets a ticket, never reused: an answer is matched by it, and
// one for a message sent before forget_all() (the master was lost) or
// expired (unanswered too long) frees nothing.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace volador::actors {

// A rank's worker on its agent: (trial id, run id, rank).
using RankKey = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>;

class LogWindow {
 public:
  // At most `limit` (at least 1) unanswered messages per rank.
  explicit LogWindow(std::size_t limit);

  // Whether another message of `rank`'s output may go now.
  [[nodiscard]] bool has_room(const RankKey& rank) const;
  // A message of `rank`'s output goes at `now_ms` (only when has_room): its ticket.
  std::uint64_t sent(const RankKey& rank, std::int64_t now_ms);
  // The answer to message `ticket` came (or its request failed): the rank
  // whose place it frees; nullopt for a ticket forgotten, expired or answered before.
  std::optional<RankKey> answered(std::uint64_t ticket);
  // The messages still unanswered `patience_ms` after they went, at `now_ms`:
  // their places are free now. Their ranks, one per message, in the order sent.
  std::vector<RankKey> expire(std::int64_t now_ms, std::int64_t patience_ms);
  // The master was lost: no answer comes for the messages out; every place is free.
  void forget_all();
  // Messages of `rank`'s output unanswered now.
  [[nodiscard]] std::size_t in_flight(const RankKey& rank) const;

 private:
  std::size_t limit_;
  std::uint64_t last_ticket_ = 0;
  struct Unanswered {
    RankKey rank;
    std::int64_t sent_ms = 0;
  };
  void free_place(const RankKey& rank);

  std::map<std::uint64_t, Unanswered> unanswered_;  // by ticket
  std::map<RankKey, std::size_t> in_flight_;     // ranks with any unanswered
};

}  // namespace volador::actors
