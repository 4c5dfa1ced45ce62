#include "runtime/net/link_silence.hpp"

namespace volador::net {

void LinkSilence::set_limit(std::chrono::milliseconds limit) {
  std::lock_guard lock(mutex_);
  limit_ = limit;
}

void LinkSilence::began(const void* session, int fd, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  links_.try_emplace(session, Link{fd, now});
}

void LinkSilence::heard(const void* session, int fd, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  links_.insert_or_assign(session, Link{fd, now});
}

void LinkSilence::forget(const void* session) {
  std::lock_guard lock(mutex_);
  links_.erase(session);
}

void LinkSilence::cut_silent(Clock::time_point now, const std::function<bool(int fd)>& waiting,
                             const std::function<void(int fd)>& cut) {
  std::lock_guard lock(mutex_);
  if (limit_.count() == 0) return;
  for (auto it = links_.begin(); it != links_.end();) {
    if (now - it->second.heard <= limit_ || waiting(it->second.fd)) {
      ++it;
      continue;
    }
    cut(it->second.fd);
    it = links_.erase(it);
  }
}

std::size_t LinkSilence::links() const {
  std::lock_guard lock(mutex_);
  return links_.size();
}

}  // namespace volador::net
