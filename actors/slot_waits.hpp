#pragma once
// Launches waiting for their slot on an agent (pure: the agent passes the
// time). A trial gives its slots back as it tells its ranks to stop, so the
// next trial's launch can reach the agent while the slot's rank still
// finishes; it waits for that rank to let the slot go (a warm worker parks
// and takes it, any other rank exits), launches for one slot in arrival
// order. A rank that holds the slot past the first waiting launch's patience
// is killed.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace volador::actors {

class SlotWaits {
 public:
  using Ticket = std::uint64_t;

  // A launch for `slot` waits from `now_ms`; once it has waited `patience_ms`
  // first in line, the rank holding the slot is overdue. Returns its ticket.
  Ticket wait(std::uint32_t slot, std::int64_t now_ms, std::int64_t patience_ms);
  // The first launch waiting for `slot`, removed at `now_ms`: the slot is free for it.
  std::optional<Ticket> next(std::uint32_t slot, std::int64_t now_ms);
  // Removes `ticket` at `now_ms` (its trial no longer wants it); false when it was not waiting.
  bool cancel(Ticket ticket, std::int64_t now_ms);
  // The slots whose first launch has waited out its patience at `now_ms`,
  // each reported once per launch: kill the rank that holds it.
  std::vector<std::uint32_t> overdue(std::int64_t now_ms);

 private:
  struct Waiting {
    Ticket ticket;
    std::int64_t patience_ms;
    std::optional<std::int64_t> overdue_at_ms;  // set once it is first in line
  };
  // The launch now first in line for `slot`, if any, starts its patience at `now_ms`.
  void start_patience(std::uint32_t slot, std::int64_t now_ms);

  Ticket last_ticket_ = 0;
  std::multimap<std::uint32_t, Waiting> waiting_;  // by slot; equal slots in arrival order
};

}  // namespace volador::actors
