#pragma once
// Where the ranks of a benchmark run: all on 127.0.0.1 in this network
// namespace (the default), or across simulated hosts: rank r inside network
// namespace namespaces[r] (/var/run/netns/NAME, as `ip netns add` makes it)
// with its listener on addresses[r]. A socket belongs to the namespace it was
// created in, so the parent opens every rank's listener inside that rank's
// namespace (listen) and each forked rank moves into its namespace (enter)
// before it connects to its peers.

#include <functional>
#include <string>
#include <vector>

#include "runtime/collective/tcp_listener.hpp"

namespace volador::bench {

class RankHosts {
 public:
  // Every rank on loopback in this namespace.
  RankHosts() = default;
  // Rank r in namespaces[r] at addresses[r]; error invalid_argument when the
  // lists differ in length.
  [[nodiscard]] static Result<RankHosts> across(std::vector<std::string> namespaces,
                                                std::vector<std::string> addresses);

  // Whether the ranks run in namespaces of their own.
  [[nodiscard]] bool across_namespaces() const { return !namespaces_.empty(); }
  // Whether n ranks have a place each (always on loopback).
  [[nodiscard]] bool fits(int n) const;
  // Opens rank's listener on its address, inside its namespace; the calling
  // thread ends in the namespace it started in. Error io naming the namespace.
  [[nodiscard]] Result<collective::TcpListener> listen(int rank) const;
  // The listeners of ranks 0..n-1, in rank order; the first error otherwise.
  [[nodiscard]] Result<std::vector<collective::TcpListener>> listen_all(int n) const;
  // Moves the calling thread (a forked rank, before it starts threads) into
  // rank's namespace for good; nothing on loopback. Error io naming it.
  [[nodiscard]] Status enter(int rank) const;

 private:
  std::vector<std::string> namespaces_;
  std::vector<std::string> addresses_;
};

// run_forked(n, fn) with each rank first moved into its place in `hosts` (a
// rank that cannot enter its namespace prints why and exits 1).
[[nodiscard]] bool run_forked_in(const RankHosts& hosts, int n, const std::function<int(int rank)>& fn);

}  // namespace volador::bench
