#include "actors/log_window.hpp"

#include <algorithm>

namespace volador::actors {

LogWindow::LogWindow(std::size_t limit) : limit_(std::max<std::size_t>(limit, 1)) {}

bool LogWindow::has_room(const RankKey& rank) const { return in_flight(rank) < limit_; }

std::uint64_t LogWindow::sent(const RankKey& rank) {
  const auto ticket = ++last_ticket_;
  unanswered_.emplace(ticket, rank);
  ++in_flight_[rank];
  return ticket;
}

std::optional<RankKey> LogWindow::answered(std::uint64_t ticket) {
  auto it = unanswered_.find(ticket);
  if (it == unanswered_.end()) return std::nullopt;
  const auto rank = it->second;
  unanswered_.erase(it);
  if (auto count = in_flight_.find(rank); --count->second == 0) in_flight_.erase(count);
  return rank;
}

void LogWindow::forget_all() {
  unanswered_.clear();
  in_flight_.clear();
}

std::size_t LogWindow::in_flight(const RankKey& rank) const {
  auto it = in_flight_.find(rank);
  return it == in_flight_.end() ? 0 : it->second;
}

}  // namespace volador::actors
