#include "runtime/net/session_clocks.hpp"

namespace volador::net {

void SessionClocks::set_limit(std::chrono::milliseconds limit) {
  std::lock_guard lock(mutex_);
  limit_ = limit;
}

void SessionClocks::start(const void* session, int fd, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  clocks_.try_emplace(session, Running{fd, now});
}

void SessionClocks::restart(const void* session, int fd, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  clocks_.insert_or_assign(session, Running{fd, now});
}

void SessionClocks::forget(const void* session) {
  std::lock_guard lock(mutex_);
  clocks_.erase(session);
}

void SessionClocks::cut_expired(Clock::time_point now, const std::function<bool(int fd)>& spared,
                                const std::function<void(int fd)>& cut) {
  std::lock_guard lock(mutex_);
  if (limit_.count() == 0) return;
  for (auto it = clocks_.begin(); it != clocks_.end();) {
    if (now - it->second.since <= limit_ || spared(it->second.fd)) {
      ++it;
      continue;
    }
    cut(it->second.fd);
    it = clocks_.erase(it);
  }
}

std::size_t SessionClocks::running() const {
  std::lock_guard lock(mutex_);
  return clocks_.size();
}

}  // namespace volador::net
