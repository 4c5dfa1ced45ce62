#include "runtime/collective/tcp_listener.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace volador::collective {

namespace {

constexpr int kBacklog = 128;

Result<std::uint16_t> bound_port(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return fail(Error::io("getsockname: " + errno_text(errno)));
  }
  if (addr.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
}

Result<UniqueFd> bind_and_listen(const addrinfo& a) {
  UniqueFd fd(socket(a.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return fail(Error::io("socket: " + errno_text(errno)));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd.get(), a.ai_addr, a.ai_addrlen) != 0) return fail(Error::io("bind: " + errno_text(errno)));
  if (listen(fd.get(), kBacklog) != 0) return fail(Error::io("listen: " + errno_text(errno)));
  return fd;
}

}  // namespace

Result<TcpListener> TcpListener::open(std::string_view host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string host_text(host);
  const std::string port_text = std::to_string(port);
  if (int rc = getaddrinfo(host_text.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return fail(Error::invalid_argument("cannot resolve listen address '" + host_text + "': " + gai_strerror(rc)));
  }
  auto fd = bind_and_listen(*found);
  freeaddrinfo(found);
  if (!fd) return fail(Error::io("listen on " + host_text + ": " + fd.error().message));
  auto actual = bound_port(fd->get());
  if (!actual) return fail(actual.error());
  return TcpListener(std::move(*fd), Endpoint{host_text, *actual});
}

Result<UniqueFd> TcpListener::accept(Deadline& deadline) {
  for (;;) {
    UniqueFd fd(::accept4(fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd) {
      if (auto tuned = tune_data_socket(fd.get()); !tuned) return fail(tuned.error());
      return fd;
    }
    if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
      return fail(Error::io("accept: " + errno_text(errno)));
    }
    if (auto ready = wait_ready(fd_.get(), POLLIN, deadline); !ready) return fail(ready.error());
  }
}

}  // namespace volador::collective
