#pragma once
// Test support: n listeners on loopback and their endpoints, opened before
// the ranks start (as a rendezvous would), and a connect helper.

#include <memory>
#include <string_view>
#include <vector>

#include "runtime/collective/tcp_communicator.hpp"

namespace volador::collective::testing {

struct TcpGroup {
  std::vector<TcpListener> listeners;
  std::vector<Endpoint> endpoints;

  explicit TcpGroup(int n) {
    for (int r = 0; r < n; ++r) {
      listeners.push_back(TcpListener::open("127.0.0.1").value());
      endpoints.push_back(listeners.back().endpoint());
    }
  }

  Result<std::unique_ptr<TcpCommunicator>> connect(int rank, std::string_view secret = "trial-secret",
                                                   CommOptions options = {}) {
    return TcpCommunicator::connect(listeners[static_cast<std::size_t>(rank)], endpoints, rank, secret, options);
  }
};

}  // namespace volador::collective::testing
