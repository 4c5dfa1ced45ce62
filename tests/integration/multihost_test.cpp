// End to end across hosts: a master and two agents, each in a network
// namespace of its own (tests/netns), talking mutual TLS over a bridge; the
// client runs on the master's host. Root only (here and in CI); without the
// right to make namespaces each test says so and passes vacuously.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/cluster_fixture.hpp"
#include "tests/integration/process_stats.hpp"
#include "tests/netns/netns_lab.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// The example experiment: one trial of 4 ranks (2 on each agent host) when
// `slots` is 4, checkpointing every 2 epochs.
std::string example_config(int slots, int epochs, int max_restarts = 1) {
  return native_trial_config("multihost", "min_validation_period: {epochs: 1}\n"
                                          "min_checkpoint_period: {epochs: 2}\n"
                                          "max_restarts: " + std::to_string(max_restarts) + "\n"
                                          "searcher: {name: single, metric: accuracy, smaller_is_better: false, "
                                          "max_length: {epochs: " + std::to_string(epochs) + "}}\n"
                                          "resources: {slots_per_trial: " + std::to_string(slots) + "}\n");
}

// A lab of three hosts, or nullptr (with a warning) where namespaces cannot be made.
std::unique_ptr<NetnsLab> three_hosts() {
  if (::geteuid() != 0) {
    WARN("skipped: multi-host tests need root to create network namespaces");
    return nullptr;
  }
  auto lab = NetnsLab::create(3);
  REQUIRE(lab.has_value());
  return std::move(*lab);
}

// The lab's waits, shorter than the defaults so that the tests do not sleep
// through them: a pulled cable is seen in 4 s (not 10), a silent connection
// is cut after 2 s (not 5), an agent gives up on a master it cannot reach
// after 5 s (not 30), a client after 1 s (not 3). Still many heartbeats long:
// the lab runs on a loaded machine. Nodes and clients alike take them.
std::vector<std::string> short_timings(const fs::path& dir) {
  const auto file = dir / "timings.conf";
  write_file(file, "connection_timeout = 4s\nhandshake_timeout = 2s\nconnect_patience = 5s\nclient_connect_patience = 1s\n");
  return {"--timings", file.string()};
}

// A cluster on `lab`: the master on host 0, agents "agent-1" and "agent-2"
// with 2 slots each on hosts 1 and 2; agent-1's workers listen on every
// interface and advertise its address (--advertise), agent-2's listen on
// the address of the route to the master.
void start_cluster(Cluster& cluster, const NetnsLab& lab) {
  cluster.start_master();
  cluster.start_agent_on(1, "agent-1", 2, lab.address(1));
  cluster.start_agent_on(2, "agent-2", 2);
}

nlohmann::json trial_of(const Cluster& cluster, const std::string& id) { return describe_experiment(cluster, id)["trials"][0]; }

bool ends(const Cluster& cluster, const std::string& id, int timeout_s) {
  return eventually([&] { return describe_experiment(cluster, id)["state"] != "ACTIVE"; }, timeout_s);
}

std::set<std::string> agent_names(const Cluster& cluster) {
  std::set<std::string> names;
  for (const auto& agent : cluster.cli({"agent", "list", "--json"}).json()) names.insert(agent["id"].get<std::string>());
  return names;
}

}  // namespace

TEST_CASE("A 4-rank trial across two hosts trains over the TCP ring with the metrics of one rank") {
  auto lab = three_hosts();
  if (!lab) return;
  TempDir dir;
  Cluster cluster(dir.path() / "data", *lab);
  start_cluster(cluster, *lab);
  CHECK(agent_names(cluster) == std::set<std::string>{"agent-1", "agent-2"});

  const auto project = dir.path() / "project";
  auto run_with_slots = [&](int slots) {
    write_file(project / "distributed.yaml", example_config(slots, 3));
    const auto id = submit(cluster, project);
    REQUIRE(ends(cluster, id, 120));
    const auto trial = trial_of(cluster, id);
    CHECK(trial["state"] == "COMPLETED");
    return std::pair{validations(cluster, trial["id"].dump()), cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out};
  };
  const auto [single, single_log] = run_with_slots(1);
  const auto [spread, log] = run_with_slots(4);
  INFO(log);
  CHECK(log.find("agent-1 (2 slots), agent-2 (2 slots)") != std::string::npos);
  CHECK(log.find("data plane: TCP ring, 4 ranks on 2 hosts") != std::string::npos);
  CHECK(log.find("data plane: shared memory") == std::string::npos);
  // agent-1's ranks (0 and 1) took its --advertise; agent-2's the routed address.
  CHECK(log.find("rank 0 listens on 0.0.0.0, reached at " + lab->address(1) + ":") != std::string::npos);
  CHECK(log.find("rank 2 listens on " + lab->address(2) + ", reached at " + lab->address(2) + ":") != std::string::npos);
  REQUIRE(single.size() >= 3);  // at least one per epoch
  check_same_validations(spread, single);
}

TEST_CASE("A partitioned host is detected and its trial restarts from the checkpoint with exact metrics while its stale workers die") {
  auto lab = three_hosts();
  if (!lab) return;
  TempDir dir;
  Cluster cluster(dir.path() / "data", *lab);
  cluster.add_node_arguments(short_timings(dir.path()));
  start_cluster(cluster, *lab);
  const auto project = dir.path() / "project";
  write_file(project / "distributed.yaml", example_config(4, 400));  // a few seconds: the cut lands mid-run
  const auto reference = submit(cluster, project);
  REQUIRE(ends(cluster, reference, 180));
  REQUIRE(trial_of(cluster, reference)["state"] == "COMPLETED");
  const auto expected = metric_history(cluster, trial_of(cluster, reference)["id"].dump());

  const auto id = submit(cluster, project);
  const auto trial_id = [&] { return trial_of(cluster, id)["id"].dump(); };
  REQUIRE(eventually([&] { return !checkpoints(cluster, id).empty(); }, 120));
  const auto host2_work = dir.path() / "data" / "work-agent-2";
  REQUIRE(processes_under(host2_work) > 0);

  // Cable pulled: no FIN, no RST; only the heartbeats can tell.
  REQUIRE(lab->disconnect(2).has_value());
  const auto pulled = std::chrono::steady_clock::now();
  REQUIRE(eventually([&] { return agent_names(cluster) == std::set<std::string>{"agent-1"}; }, 20));
  const auto detected = std::chrono::steady_clock::now() - pulled;
  CHECK(detected < std::chrono::seconds(15));
  // The surviving ranks on host 1 are killed; the trial waits for 4 slots.
  REQUIRE(eventually([&] { return processes_under(dir.path() / "data" / "work-agent-1") == 0; }, 20));
  CHECK(cluster.cli({"trial", "logs", "--all", trial_id()}).out.find("lost an agent running this trial") != std::string::npos);
  CHECK(describe_experiment(cluster, id)["state"] == "ACTIVE");

  // The host comes back: its agent registers again, the old run's workers are
  // killed (never let back in), and the trial resumes from its checkpoint.
  REQUIRE(lab->reconnect(2).has_value());
  REQUIRE(eventually([&] { return agent_names(cluster).size() == 2; }, 60));
  REQUIRE(ends(cluster, id, 180));
  const auto logs = cluster.cli({"trial", "logs", "--all", trial_id()}).out;
  INFO(logs);
  CHECK(trial_of(cluster, id)["state"] == "COMPLETED");
  CHECK(logs.find("from checkpoint") != std::string::npos);
  CHECK(metric_history(cluster, trial_id()) == expected);
  // Nothing of run 1 is left on host 2; run 2's workers, kept warm for a
  // next trial of the experiment, stop once idle a few seconds.
  CHECK(processes_in_trial_folders(host2_work, "trial-" + trial_id() + "-run-1-") == 0);
  CHECK(eventually([&] { return processes_under(host2_work) == 0; }, 30));
}

TEST_CASE("Peers without the cluster's certificates cannot connect and the master keeps serving") {
  auto lab = three_hosts();
  if (!lab) return;
  TempDir dir;
  Cluster cluster(dir.path() / "data", *lab);
  const auto timings = short_timings(dir.path());
  cluster.add_node_arguments(timings);
  cluster.start_master();
  cluster.start_agent_on(1, "agent-1", 1);
  const auto host = lab->address(0);
  const auto port = cluster.master_address().substr(cluster.master_address().rfind(':') + 1);
  auto from_host_2 = [&](std::vector<std::string> argv) {
    return run_command(lab->in_host(2, std::move(argv)), 90, cluster.admin_environment());
  };
  auto client_with = [&](const fs::path& bundle) {
    std::vector<std::string> client{binary("volador").string(), "-m", cluster.master_address(), "--bundle", bundle.string()};
    client.insert(client.end(), timings.begin(), timings.end());
    client.insert(client.end(), {"agent", "list"});
    return from_host_2(std::move(client));
  };

  SECTION("a client with another cluster's certificate") {
    const auto foreign = issue_test_bundle(dir.path() / "other-cluster", "admin");
    const auto refused = client_with(foreign);
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("cannot reach the master at " + cluster.master_address()) != std::string::npos);
    // CAF's reason, passed on: the master's refusal reaches the client during
    // its TLS handshake or just after, or on a loaded machine the client's
    // short patience (short_timings) runs out first; never a reply.
    INFO(refused.err);
    CHECK((refused.err.find("cannot_connect_to_node") != std::string::npos ||
           refused.err.find("disconnect_during_handshake") != std::string::npos ||
           refused.err.find("connection_timeout") != std::string::npos));
  }
  SECTION("an agent with another cluster's certificate") {
    const auto foreign = issue_test_bundle(dir.path() / "other-cluster", "intruder");
    std::vector<std::string> intruder{binary("volador-node").string(), "agent", "-m", cluster.master_address(), "--bundle",
                                      foreign.string(), "--work-dir", (dir.path() / "intruder").string()};
    intruder.insert(intruder.end(), timings.begin(), timings.end());
    auto refused = from_host_2(std::move(intruder));
    CHECK(refused.exit_code == 1);
    CHECK((refused.out + refused.err).find("cannot reach the master") != std::string::npos);
    CHECK(agent_names(cluster) == std::set<std::string>{"agent-1"});
  }
  SECTION("a client with a self-signed certificate") {
    const auto self_signed = dir.path() / "self-signed.bundle";
    const auto key = dir.path() / "self.key", cert = dir.path() / "self.crt";
    REQUIRE(run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                         key.string(), "-out", cert.string(), "-subj", "/CN=admin", "-days", "2"})
                .exit_code == 0);
    std::ifstream cert_in(cert), key_in(key);
    std::stringstream cert_text, key_text;
    cert_text << cert_in.rdbuf();
    key_text << key_in.rdbuf();
    write_file(self_signed, cert_text.str() + key_text.str() + cert_text.str());  // its own CA
    const auto refused = client_with(self_signed);
    CHECK(refused.exit_code == 1);
    CHECK(refused.err.find("cannot reach the master") != std::string::npos);
  }
  SECTION("a CAF peer with no certificate, anonymous TLS or plain") {
    for (const auto* probe : {"anonymous", "plain"}) {
      const auto result = from_host_2({binary("volador-tls-probe").string(), probe, host, port});
      INFO(probe << ": " << result.out << result.err);
      CHECK(result.exit_code == 0);
    }
  }
  SECTION("garbage and a header announcing 1 GiB leave the master as it was") {
    const auto before = status_kib(cluster.master_pid(), "VmRSS");
    REQUIRE(before > 0);
    for (int round = 0; round < 20; ++round)
      for (const auto* probe : {"garbage", "huge-header"}) {
        const auto result = from_host_2({binary("volador-tls-probe").string(), probe, host, port});
        INFO(probe << ": " << result.out << result.err);
        REQUIRE(result.exit_code == 0);  // the master closed the connection
      }
    const auto after = status_kib(cluster.master_pid(), "VmRSS");
    INFO("VmRSS " << before << " KiB before, " << after << " KiB after");
    CHECK(after < before + 16 * 1024);  // a 1 GiB allocation would show; TLS sessions cost kilobytes
  }
  SECTION("connections that never start their handshake are closed within seconds") {
    const auto before = open_descriptors(cluster.master_pid());
    const auto result = from_host_2({binary("volador-tls-probe").string(), "idle", host, port, "200"});
    INFO(result.out << result.err);
    CHECK(result.exit_code == 0);  // all 200 closed by the master (the lab's 2 s handshake limit)
    CHECK(eventually([&] { return open_descriptors(cluster.master_pid()) <= before + 2; }, 5));
  }
  // Whatever was tried, the master still serves its own clients and agents.
  const auto served = client_with(cluster.admin_bundle());
  INFO(served.err);
  CHECK(served.exit_code == 0);
  CHECK(served.out.find("agent-1") != std::string::npos);
}
