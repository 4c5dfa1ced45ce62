#include "actors/log_window.hpp"

#include <algorithm>

namespace volador::actors {

LogWindow::LogWindow(std::size_t limit) : limit_(std::max<std::size_t>(limit, 1)) {}

bool LogWindow::has_room(const RankKey& rank) const { return in_flight(rank) < limit_; }

std::uint64_t LogWindow::sent(const RankKey& rank, std::int64_t now_ms) {
  const auto ticket = ++last_ticket_;
  unanswered_.emplace(ticket, Unanswered{rank, now_ms});
  ++in_flight_[rank];
  return ticket;
}

std::optional<RankKey> LogWindow::answered(std::uint64_t ticket) {
  auto it = unanswered_.find(ticket);
  if (it == unanswered_.end()) return std::nullopt;
  const auto rank = it->second.rank;
  unanswered_.erase(it);
  free_place(rank);
  return rank;
}

std::vector<RankKey> LogWindow::expire(std::int64_t now_ms, std::int64_t patience_ms) {
  std::vector<RankKey> expired;
  std::erase_if(unanswered_, [&](const auto& entry) {
    if (now_ms - entry.second.sent_ms < patience_ms) return false;
    expired.push_back(entry.second.rank);
    free_place(entry.second.rank);
    return true;
  });
  return expired;
}

void LogWindow::free_place(const RankKey& rank) {
  if (auto count = in_flight_.find(rank); --count->second == 0) in_flight_.erase(count);
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
