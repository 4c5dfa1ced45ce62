#pragma once
// A network-namespace "lab" for multi-host end-to-end tests (root only): N
// simulated hosts on one machine. Host i is a namespace with `lo` up and an
// `eth0` at 10.77.0.(i+1)/24; each eth0 is one end of a veth pair whose other
// end, port "h<i>", is a port of bridge `br0` in a separate switch namespace.
// Nothing is created in the root namespace (every interface name lives in a
// lab namespace), so labs running in parallel never collide. Namespaces are
// named "vl-<pid>-<random hex>-h<i>" and "...-sw". Everything goes through
// iproute2's `ip` (found on PATH). Faults are link-level only (disconnect /
// reconnect); there is no iptables-based block() because the machines this
// was written on have no iptables.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::testing {

// Runs argv (argv[0] searched on PATH) to completion and returns its stdout.
// Error io naming the command line and its stderr when it cannot start or exits non-zero.
Result<std::string> capture_output(const std::vector<std::string>& argv);

class NetnsLab {
 public:
  // Builds a lab of `hosts` hosts (1..253), after remove_stale(). Error
  // invalid_argument for a bad count, io naming the failed `ip` command.
  static Result<std::unique_ptr<NetnsLab>> create(int hosts);

  // Deletes lab namespaces ("vl-<pid>-...") whose creating process no longer
  // exists (left by a crashed run), killing any process still inside them.
  static void remove_stale();

  [[nodiscard]] int hosts() const { return hosts_; }
  // The IPv4 address of host `host` (0-based): "10.77.0.<host+1>".
  [[nodiscard]] std::string address(int host) const;
  // The name of host `host`'s namespace, for `ip -n` / `ip netns exec`.
  [[nodiscard]] std::string namespace_name(int host) const;
  // The switch namespace holding br0 and the ports h0..h<N-1>.
  [[nodiscard]] std::string switch_namespace() const { return prefix_ + "-sw"; }
  // argv prefixed with `ip netns exec NAME`: runs the program inside the host
  // (ip execs it, so a spawned ChildProcess's pid is the program's).
  [[nodiscard]] std::vector<std::string> in_host(int host, std::vector<std::string> argv) const;

  // A cable pull: takes the host's bridge port down (the host's eth0 loses
  // carrier but keeps its address and routes). Packets to and from the host
  // are dropped silently: no RST/FIN, no ENETUNREACH; senders just time out.
  Status disconnect(int host);
  // Plugs the cable back (bridge port up); connections that survived resume.
  Status reconnect(int host);

  // Kills every process still inside the lab's namespaces and deletes them.
  ~NetnsLab();

  NetnsLab(const NetnsLab&) = delete;
  NetnsLab& operator=(const NetnsLab&) = delete;

 private:
  NetnsLab(std::string prefix, int hosts) : prefix_(std::move(prefix)), hosts_(hosts) {}
  Status add_namespace(const std::string& name);
  Status build_switch();
  Status build_host(int host);
  Status set_port(int host, const char* state);

  std::string prefix_;                  // "vl-<pid>-<hex>"
  int hosts_;
  std::vector<std::string> created_;    // namespaces to delete, in creation order
};

}  // namespace volador::testing
