#include "runtime/net/handshake_write_backoff.hpp"

namespace volador::net {

int HandshakeWriteBackoff::control(int epfd, int op, int fd, epoll_event* event) {
  std::lock_guard lock(mutex_);
  if (op == EPOLL_CTL_DEL) {
    fds_.erase(fd);  // its backoff ends with it; the number may come back as another socket
    return real_(epfd, op, fd, event);
  }
  auto& registration = fds_[fd];
  registration.epfd = epfd;
  registration.wanted = *event;
  if (!registration.backing_off) return real_(epfd, op, fd, event);
  epoll_event without_write = *event;
  without_write.events &= ~static_cast<std::uint32_t>(EPOLLOUT);
  return real_(epfd, op, fd, &without_write);
}

void HandshakeWriteBackoff::back_off(int fd) {
  std::lock_guard lock(mutex_);
  auto& registration = fds_[fd];
  if (registration.backing_off) return;
  registration.backing_off = true;
  if (registration.epfd >= 0 && (registration.wanted.events & EPOLLOUT) != 0)
    apply(fd, registration, registration.wanted.events & ~static_cast<std::uint32_t>(EPOLLOUT));
}

void HandshakeWriteBackoff::resume(int fd) {
  std::lock_guard lock(mutex_);
  auto it = fds_.find(fd);
  if (it == fds_.end() || !it->second.backing_off) return;
  it->second.backing_off = false;
  if (it->second.epfd >= 0 && (it->second.wanted.events & EPOLLOUT) != 0) apply(fd, it->second, it->second.wanted.events);
}

void HandshakeWriteBackoff::forget(int fd) {
  std::lock_guard lock(mutex_);
  fds_.erase(fd);
}

void HandshakeWriteBackoff::apply(int fd, const Registration& registration, std::uint32_t events) {
  epoll_event event = registration.wanted;
  event.events = events;
  real_(registration.epfd, EPOLL_CTL_MOD, fd, &event);
}

}  // namespace volador::net
