#include "actors/slot_waits.hpp"

#include <algorithm>

namespace volador::actors {

SlotWaits::Ticket SlotWaits::wait(std::uint32_t slot, std::int64_t now_ms, std::int64_t patience_ms) {
  const auto ticket = ++last_ticket_;
  waiting_.emplace(slot, Waiting{ticket, patience_ms, std::nullopt});
  start_patience(slot, now_ms);
  return ticket;
}

void SlotWaits::start_patience(std::uint32_t slot, std::int64_t now_ms) {
  auto first = waiting_.find(slot);  // the earliest to arrive
  if (first != waiting_.end() && !first->second.overdue_at_ms)
    first->second.overdue_at_ms = now_ms + first->second.patience_ms;
}

std::optional<SlotWaits::Ticket> SlotWaits::next(std::uint32_t slot, std::int64_t now_ms) {
  auto it = waiting_.find(slot);
  if (it == waiting_.end()) return std::nullopt;
  const auto ticket = it->second.ticket;
  waiting_.erase(it);
  start_patience(slot, now_ms);
  return ticket;
}

bool SlotWaits::cancel(Ticket ticket, std::int64_t now_ms) {
  auto it = std::ranges::find_if(waiting_, [&](const auto& entry) { return entry.second.ticket == ticket; });
  if (it == waiting_.end()) return false;
  const auto slot = it->first;
  waiting_.erase(it);
  start_patience(slot, now_ms);
  return true;
}

std::vector<std::uint32_t> SlotWaits::overdue(std::int64_t now_ms) {
  std::vector<std::uint32_t> slots;
  for (auto& [slot, waiting] : waiting_) {
    auto& due = waiting.overdue_at_ms;  // only the first in line has one
    if (due && now_ms >= *due) {
      due = INT64_MAX;  // reported once
      slots.push_back(slot);
    }
  }
  return slots;
}

}  // namespace volador::actors
