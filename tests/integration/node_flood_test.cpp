// Floods of a master's node port (issue 17, item 1): a peer holding the
// cluster's certificate that announces a 4 GiB CAF frame, and more idle
// connections than the common 1,024-descriptor limit. The master must cut the
// first off before allocating anything and keep serving its clients through both.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/process/child_process.hpp"
#include "tests/integration/cluster_fixture.hpp"
#include "tests/integration/process_stats.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// HOST and PORT of a HOST:PORT address.
std::pair<std::string, std::string> host_and_port(const std::string& address) {
  const auto colon = address.rfind(':');
  return {address.substr(0, colon), address.substr(colon + 1)};
}

// Sets this process's soft descriptor limit (children started from now on inherit it); the old limit.
rlimit set_soft_descriptor_limit(rlim_t soft) {
  rlimit old{};
  ::getrlimit(RLIMIT_NOFILE, &old);
  rlimit wanted = old;
  wanted.rlim_cur = std::min(soft, old.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &wanted);
  return old;
}

}  // namespace

TEST_CASE("A peer with the cluster's certificate announcing a 4 GiB frame is cut off before the master allocates it") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto [host, port] = host_and_port(cluster.master_address());
  const pid_t master = cluster.master_pid();
  const long peak_before = status_kib(master, "VmHWM");
  REQUIRE(peak_before > 0);
  for (int round = 0; round < 3; ++round) {
    const auto probe = run_command(
        {binary("volador-tls-probe").string(), "huge-frame", host, port, cluster.admin_bundle().string()}, 60);
    INFO(probe.out << probe.err);
    REQUIRE(probe.exit_code == 0);  // the master closed the connection
  }
  const long peak_after = status_kib(master, "VmHWM");
  INFO("VmHWM " << peak_before << " KiB before, " << peak_after << " KiB after");
  CHECK(peak_after < peak_before + 64 * 1024);  // 4 GiB zero-filled would be the peak; a session costs kilobytes
  // The master still serves its clients, and its agent was not dropped.
  const auto agents = cluster.cli({"agent", "list", "--json"});
  INFO(agents.err);
  REQUIRE(agents.exit_code == 0);
  CHECK(agents.json().size() == 1);
}

TEST_CASE("1100 connections that never start a handshake neither keep clients out nor stay open nor does a "
          "certified peer that never says hello") {
  TempDir dir;
  const auto timings = dir.path() / "timings.conf";
  // Held long enough to check a client while they are open; the probe waits up to 60 s for them to close.
  write_file(timings, "handshake_timeout = 8s\n");
  // The master starts with the common soft limit of 1,024 descriptors, as under systemd.
  const rlimit saved = set_soft_descriptor_limit(1024);
  Cluster cluster(dir.path() / "data");
  cluster.add_node_arguments({"--timings", timings.string()});
  cluster.start_master();
  cluster.start_agent(1);
  ::setrlimit(RLIMIT_NOFILE, &saved);
  const pid_t master = cluster.master_pid();
  REQUIRE(cluster.cli({"agent", "list", "--json"}).exit_code == 0);  // logged in before the flood
  const long descriptors_before = open_descriptors(master);
  const auto [host, port] = host_and_port(cluster.master_address());
  // On a loaded machine the master takes seconds to accept 1,100 connections and then reach the
  // client's handshake: the client waits longer than the default 3 s, which it needs no more once they are open.
  const auto patient = dir.path() / "patient-client.conf";
  write_file(patient, "client_connect_patience = 30s\n");

  std::promise<int> probe_exit;
  std::string probe_output;
  auto probe = process::ChildProcess::spawn(
      {.argv = {binary("volador-tls-probe").string(), "idle", host, port, "1100"}},
      [&](std::string_view, std::string line) { probe_output += line + "\n"; },
      [&](process::ProcessExit exit) { probe_exit.set_value(exit.exit_code); });
  REQUIRE(probe);
  // The master raised the soft limit it started with, so it can hold every one of them at once (on a
  // loaded machine it cuts the first before it has accepted the last, so they are not all open at once;
  // the probe's exit says every one was accepted and closed) ...
  CHECK(soft_descriptor_limit(master) >= descriptors_before + 1100);
  // ... and a client is served while they are held open.
  const auto agents = cluster.cli({"--timings", patient.string(), "agent", "list", "--json"});
  INFO(agents.err);
  CHECK(agents.exit_code == 0);
  // All of them are closed by the master after the handshake limit, and their descriptors freed.
  auto exited = probe_exit.get_future();
  REQUIRE(exited.wait_for(std::chrono::seconds(90)) == std::future_status::ready);
  INFO(probe_output);
  CHECK(exited.get() == 0);
  CHECK(eventually([&] { return open_descriptors(master) <= descriptors_before + 2; }, 5));
  // A peer with the cluster's certificate that completes TLS but never says hello is closed too.
  const auto quiet = run_command(
      {binary("volador-tls-probe").string(), "quiet-peer", host, port, cluster.admin_bundle().string()}, 60);
  INFO(quiet.out << quiet.err);
  CHECK(quiet.exit_code == 0);
}

// CAF 0.17 spun on a writable socket while an accepted TLS handshake waited
// for its peer: one silent connection kept the master's network thread at a
// whole core until its handshake limit (handshake_write_backoff.hpp).
TEST_CASE("Silent connections waiting for their handshake limit leave the master idle") {
  TempDir dir;
  const auto timings = dir.path() / "timings.conf";
  write_file(timings, "handshake_timeout = 10s\n");
  Cluster cluster(dir.path() / "data");
  cluster.add_node_arguments({"--timings", timings.string()});
  cluster.start_master();
  const pid_t master = cluster.master_pid();
  const long descriptors_before = open_descriptors(master);
  const auto [host, port] = host_and_port(cluster.master_address());
  auto probe = process::ChildProcess::spawn({.argv = {binary("volador-tls-probe").string(), "idle", host, port, "50"}},
                                            [](std::string_view, std::string) {}, [](process::ProcessExit) {});
  REQUIRE(probe);
  REQUIRE(eventually([&] { return open_descriptors(master) >= descriptors_before + 50; }, 10));
  const long before = cpu_ticks(master);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long used = cpu_ticks(master) - before;
  INFO(used << " clock ticks of CPU in 2 s (" << ::sysconf(_SC_CLK_TCK) << " a second)");
  CHECK(used < ::sysconf(_SC_CLK_TCK) / 2);  // spinning used 2 s' worth; an idle master uses next to none
}
