#include "runtime/net/local_address.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace volador::net {
namespace {

Error unroutable(const Endpoint& peer, const std::string& why) {
  return Error::unavailable("cannot find a local address towards " + peer.to_string() + ": " + why);
}

std::string numeric_host(const sockaddr_storage& address, socklen_t length) {
  char host[NI_MAXHOST] = {};
  getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, host, sizeof host, nullptr, 0, NI_NUMERICHOST);
  return host;
}

}  // namespace

Result<std::string> local_address_towards(const Endpoint& peer) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const auto port = std::to_string(peer.port == 0 ? 9 : peer.port);
  if (int rc = getaddrinfo(peer.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return fail(unroutable(peer, gai_strerror(rc)));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  // Connecting a UDP socket only picks the route and the source address.
  const int fd = ::socket(found->ai_family, SOCK_DGRAM, 0);
  if (fd < 0) return fail(unroutable(peer, std::strerror(errno)));
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  const bool ok = ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) return fail(unroutable(peer, std::strerror(error)));
  return numeric_host(local, length);
}

}  // namespace volador::net
