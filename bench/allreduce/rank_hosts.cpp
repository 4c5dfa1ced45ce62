#include "bench/allreduce/rank_hosts.hpp"

#include <fcntl.h>
#include <sched.h>

#include <cerrno>
#include <cstdio>

#include "bench/allreduce/bench_common.hpp"

namespace volador::bench {

namespace {

// Moves the calling thread into the network namespace at `path`.
Status enter_namespace(const std::string& path) {
  UniqueFd ns(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!ns) return fail(Error::io("open " + path + ": " + collective::errno_text(errno)));
  if (::setns(ns.get(), CLONE_NEWNET) != 0)
    return fail(Error::io("setns " + path + ": " + collective::errno_text(errno)));
  return {};
}

std::string namespace_path(const std::string& name) { return "/var/run/netns/" + name; }

}  // namespace

Result<RankHosts> RankHosts::across(std::vector<std::string> namespaces, std::vector<std::string> addresses) {
  if (namespaces.size() != addresses.size())
    return fail(Error::invalid_argument(std::to_string(namespaces.size()) + " namespaces but " +
                                        std::to_string(addresses.size()) + " addresses"));
  RankHosts hosts;
  hosts.namespaces_ = std::move(namespaces);
  hosts.addresses_ = std::move(addresses);
  return hosts;
}

bool RankHosts::fits(int n) const { return !across_namespaces() || n <= static_cast<int>(namespaces_.size()); }

Result<collective::TcpListener> RankHosts::listen(int rank) const {
  if (!across_namespaces()) return collective::TcpListener::open("127.0.0.1");
  const auto r = static_cast<std::size_t>(rank);
  const std::string home = "/proc/thread-self/ns/net";
  UniqueFd back(::open(home.c_str(), O_RDONLY | O_CLOEXEC));
  if (!back) return fail(Error::io("open " + home + ": " + collective::errno_text(errno)));
  if (auto in = enter_namespace(namespace_path(namespaces_[r])); !in) return fail(in.error());
  auto listener = collective::TcpListener::open(addresses_[r]);
  if (::setns(back.get(), CLONE_NEWNET) != 0)
    return fail(Error::io("setns back to " + home + ": " + collective::errno_text(errno)));
  if (!listener) return fail(Error::io("in namespace " + namespaces_[r] + ": " + listener.error().message));
  return listener;
}

Result<std::vector<collective::TcpListener>> RankHosts::listen_all(int n) const {
  std::vector<collective::TcpListener> listeners;
  for (int r = 0; r < n; ++r) {
    auto listener = listen(r);
    if (!listener) return fail(listener.error());
    listeners.push_back(std::move(*listener));
  }
  return listeners;
}

Status RankHosts::enter(int rank) const {
  if (!across_namespaces()) return {};
  return enter_namespace(namespace_path(namespaces_[static_cast<std::size_t>(rank)]));
}

bool run_forked_in(const RankHosts& hosts, int n, const std::function<int(int rank)>& fn) {
  return run_forked(n, [&](int rank) {
    if (auto placed = hosts.enter(rank); !placed) {
      std::fprintf(stderr, "rank %d: %s\n", rank, placed.error().message.c_str());
      return 1;
    }
    return fn(rank);
  });
}

}  // namespace volador::bench
