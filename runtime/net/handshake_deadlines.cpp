#include "runtime/net/handshake_deadlines.hpp"

namespace volador::net {

void HandshakeDeadlines::set_limit(std::chrono::milliseconds limit) {
  std::lock_guard lock(mutex_);
  limit_ = limit;
}

void HandshakeDeadlines::begun(const void* session, int fd, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  pending_.try_emplace(session, Pending{fd, now});
}

void HandshakeDeadlines::ended(const void* session) {
  std::lock_guard lock(mutex_);
  pending_.erase(session);
}

void HandshakeDeadlines::cut_overdue(Clock::time_point now, const std::function<void(int fd)>& cut) {
  std::lock_guard lock(mutex_);
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (now - it->second.began <= limit_) {
      ++it;
      continue;
    }
    cut(it->second.fd);
    it = pending_.erase(it);
  }
}

std::size_t HandshakeDeadlines::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

}  // namespace volador::net
