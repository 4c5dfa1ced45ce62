#pragma once
// Test support: n listeners on loopback and their endpoints, opened before
// the ranks start (as a rendezvous would), a connect helper, and a runner
// for every rank of the group in threads.

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "runtime/collective/tcp_communicator.hpp"
#include "runtime/collective/tests/group_harness.hpp"

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

  // Each rank in a thread of its own: connects (default secret and options),
  // then returns body(its communicator, rank).
  std::vector<RankReport> run_ranks(const std::function<Status(TcpCommunicator&, int rank)>& body) {
    return run_in_threads(static_cast<int>(listeners.size()), [&](int rank) -> Status {
      auto comm = connect(rank);
      if (!comm) return fail(comm.error());
      return body(**comm, rank);
    });
  }
};

}  // namespace volador::collective::testing
