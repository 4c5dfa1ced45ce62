#include "runtime/collective/socket.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <thread>

namespace volador::collective {

namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

Result<AddrInfoPtr> resolve(const Endpoint& to) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(to.port);
  if (int rc = getaddrinfo(to.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return fail(Error::unavailable("cannot resolve " + to.to_string() + ": " + gai_strerror(rc)));
  }
  return AddrInfoPtr(found);
}

// One nonblocking connect attempt.
Result<UniqueFd> try_connect(const addrinfo& a, Deadline& deadline) {
  UniqueFd fd(socket(a.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return fail(Error::io("socket: " + errno_text(errno)));
  int err = 0;
  if (connect(fd.get(), a.ai_addr, a.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) err = errno;
    if (err == 0) {
      if (auto ready = wait_ready(fd.get(), POLLOUT, deadline); !ready) return fail(ready.error());
      socklen_t len = sizeof err;
      getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    }
  }
  if (err != 0) return fail(Error::unavailable(errno_text(err)));
  return fd;
}

}  // namespace

std::string errno_text(int err) { return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")"; }

std::string Endpoint::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<Endpoint> parse_endpoint(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) {
    return fail(Error::invalid_argument("endpoint '" + std::string(text) + "' is not host:port"));
  }
  std::string_view host = text.substr(0, colon);
  if (host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port == 0 || port > 65535) {
    return fail(Error::invalid_argument("endpoint '" + std::string(text) + "' has no valid port"));
  }
  return Endpoint{std::string(host), static_cast<std::uint16_t>(port)};
}

Status tune_data_socket(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) {
    return fail(Error::io("setsockopt TCP_NODELAY: " + errno_text(errno)));
  }
  return {};
}

Result<UniqueFd> connect_to(const Endpoint& to, Deadline& deadline) {
  auto addresses = resolve(to);
  if (!addresses) return fail(addresses.error());
  for (;;) {
    std::string last = "no address";
    for (const addrinfo* a = addresses->get(); a != nullptr; a = a->ai_next) {
      auto fd = try_connect(*a, deadline);
      if (fd) {
        if (auto tuned = tune_data_socket(fd->get()); !tuned) return fail(tuned.error());
        return fd;
      }
      last = fd.error().message;
    }
    if (deadline.expired()) return fail(Error::unavailable("cannot connect to " + to.to_string() + ": " + last));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status wait_ready(int fd, short events, Deadline& deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int rc = poll(&p, 1, deadline.poll_ms());
    if (rc > 0) return {};
    if (rc == 0) return fail(Error::unavailable("timed out after " + std::to_string(deadline.budget().count()) + " ms"));
    if (errno != EINTR) return fail(Error::io("poll: " + errno_text(errno)));
  }
}

Status send_exact(int fd, std::span<const std::byte> bytes, Deadline& deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    } else if (errno == EAGAIN || errno == EINTR) {
      if (auto ready = wait_ready(fd, POLLOUT, deadline); !ready) return ready;
    } else {
      return fail(Error::unavailable("send: " + errno_text(errno)));
    }
  }
  return {};
}

Status recv_exact(int fd, std::span<std::byte> bytes, Deadline& deadline) {
  while (!bytes.empty()) {
    const ssize_t n = ::recv(fd, bytes.data(), bytes.size(), 0);
    if (n > 0) {
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    } else if (n == 0) {
      return fail(Error::unavailable("connection closed by the peer"));
    } else if (errno == EAGAIN || errno == EINTR) {
      if (auto ready = wait_ready(fd, POLLIN, deadline); !ready) return ready;
    } else {
      return fail(Error::unavailable("recv: " + errno_text(errno)));
    }
  }
  return {};
}

}  // namespace volador::collective
