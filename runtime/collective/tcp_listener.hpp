#pragma once
// A rank's listening socket for data-plane connections. Open it before the
// rendezvous, publish endpoint(), and hand it to TcpCommunicator::connect.
// Move-only; not thread-safe.

#include <cstdint>
#include <string_view>

#include "runtime/collective/socket.hpp"

namespace volador::collective {

class TcpListener {
 public:
  // Binds `host` (an address of this machine that peers can reach; port 0
  // picks a free port) and listens. Error io/invalid_argument naming why.
  [[nodiscard]] static Result<TcpListener> open(std::string_view host, std::uint16_t port = 0);

  // The bound address, with the actual port: what the rendezvous publishes.
  [[nodiscard]] const Endpoint& endpoint() const { return endpoint_; }
  // Accepts one connection (tuned for bulk data) or fails at the deadline.
  [[nodiscard]] Result<UniqueFd> accept(Deadline& deadline);

 private:
  TcpListener(UniqueFd fd, Endpoint endpoint) : fd_(std::move(fd)), endpoint_(std::move(endpoint)) {}

  UniqueFd fd_;
  Endpoint endpoint_;
};

}  // namespace volador::collective
