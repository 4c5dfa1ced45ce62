#pragma once
// Endpoints and the few blocking-style socket calls of the TCP backend's
// setup, on owned descriptors (runtime/core/unique_fd.hpp). Sockets are
// nonblocking and close-on-exec; every wait is bounded by a Deadline (error
// unavailable when it expires).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "runtime/collective/deadline.hpp"
#include "runtime/core/error.hpp"
#include "runtime/core/unique_fd.hpp"

namespace volador::collective {

// strerror's text and the number: "Connection refused (errno 111)".
[[nodiscard]] std::string errno_text(int err);

// A TCP address as the rendezvous passes it around.
struct Endpoint {
  std::string host;  // numeric IPv4/IPv6 address or a resolvable name
  std::uint16_t port = 0;
  // "host:port", or "[v6]:port" for an IPv6 address.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};
// Parses to_string()'s form; error invalid_argument naming the problem.
[[nodiscard]] Result<Endpoint> parse_endpoint(std::string_view text);

// Connects to `to`, retrying failed attempts until the deadline; the socket
// comes back nonblocking and tuned (tune_data_socket).
[[nodiscard]] Result<UniqueFd> connect_to(const Endpoint& to, Deadline& deadline);
// TCP_NODELAY. Socket buffers stay under Linux's autotuning, which grows them
// to net.ipv4.tcp_rmem/tcp_wmem's maximum as a transfer needs (setting them
// by hand turns autotuning off and measured slower on loopback).
[[nodiscard]] Status tune_data_socket(int fd);
// Waits until `fd` has `events` (POLLIN/POLLOUT) or the deadline expires.
[[nodiscard]] Status wait_ready(int fd, short events, Deadline& deadline);
// Sends or receives exactly the span; a closed peer is error unavailable.
[[nodiscard]] Status send_exact(int fd, std::span<const std::byte> bytes, Deadline& deadline);
[[nodiscard]] Status recv_exact(int fd, std::span<std::byte> bytes, Deadline& deadline);

}  // namespace volador::collective
