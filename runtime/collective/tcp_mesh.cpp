#include "runtime/collective/tcp_mesh.hpp"

#include <algorithm>
#include <string>

#include "runtime/collective/handshake.hpp"

namespace volador::collective {

namespace {

// A connection that has not said hello by then is dropped (a stray, not a rank).
constexpr std::chrono::milliseconds kHelloBudget{2'000};

std::string missing_ranks(const std::vector<UniqueFd>& peers, int below) {
  std::string out;
  for (int r = 0; r < below; ++r) {
    if (!peers[static_cast<std::size_t>(r)]) out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return out;
}

Status connect_up(std::vector<UniqueFd>& peers, std::span<const Endpoint> endpoints, int rank, std::string_view secret,
                  Deadline& deadline) {
  const int n = static_cast<int>(endpoints.size());
  for (int peer = rank + 1; peer < n; ++peer) {
    auto fd = connect_to(endpoints[static_cast<std::size_t>(peer)], deadline);
    if (!fd) return fail({fd.error().code, "rank " + std::to_string(peer) + ": " + fd.error().message});
    if (auto sent = send_hello(fd->get(), secret, n, rank, deadline); !sent) return sent;
    peers[static_cast<std::size_t>(peer)] = std::move(*fd);
  }
  return {};
}

// Accepts one connection; Ok(true) when it was a new lower rank, Ok(false) when it was refused.
Result<bool> accept_one(TcpListener& listener, std::vector<UniqueFd>& peers, int rank, std::string_view secret,
                        Deadline& deadline, std::string& last_refusal) {
  auto fd = listener.accept(deadline);
  if (!fd) return fail(fd.error());
  Deadline hello_deadline(std::min(kHelloBudget, deadline.budget()));
  auto peer = read_hello(fd->get(), secret, static_cast<int>(peers.size()), hello_deadline);
  if (!peer) {
    last_refusal = peer.error().message;
    return false;
  }
  const bool fresh = *peer < rank && !peers[static_cast<std::size_t>(*peer)];
  if (auto answered = answer_hello(fd->get(), fresh, rank, hello_deadline); !answered || !fresh) {
    last_refusal = fresh ? answered.error().message : "duplicate or unexpected rank " + std::to_string(*peer);
    return false;
  }
  peers[static_cast<std::size_t>(*peer)] = std::move(*fd);
  return true;
}

Status accept_down(TcpListener& listener, std::vector<UniqueFd>& peers, int rank, std::string_view secret,
                   Deadline& deadline) {
  std::string last_refusal;
  for (int accepted = 0; accepted < rank;) {
    auto fresh = accept_one(listener, peers, rank, secret, deadline, last_refusal);
    if (!fresh) {
      std::string why = "rank " + std::to_string(rank) + " waited for ranks " + missing_ranks(peers, rank) +
                        " to connect: " + fresh.error().message;
      if (!last_refusal.empty()) why += " (last connection refused: " + last_refusal + ")";
      return fail({fresh.error().code, why});
    }
    accepted += *fresh ? 1 : 0;
  }
  return {};
}

}  // namespace

Result<std::vector<UniqueFd>> connect_mesh(TcpListener& listener, std::span<const Endpoint> endpoints, int rank,
                                     std::string_view secret, std::chrono::milliseconds timeout) {
  const int n = static_cast<int>(endpoints.size());
  if (rank < 0 || rank >= n) return fail(Error::invalid_argument("rank " + std::to_string(rank) + " outside the group"));
  std::vector<UniqueFd> peers(endpoints.size());
  Deadline deadline(timeout);
  if (auto up = connect_up(peers, endpoints, rank, secret, deadline); !up) return fail(up.error());
  if (auto down = accept_down(listener, peers, rank, secret, deadline); !down) return fail(down.error());
  for (int peer = rank + 1; peer < n; ++peer) {
    if (auto ok = await_welcome(peers[static_cast<std::size_t>(peer)].get(), peer, deadline); !ok) return fail(ok.error());
  }
  return peers;
}

}  // namespace volador::collective
