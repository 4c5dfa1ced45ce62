// End to end: rank workers' own identities (tls/rank_name.hpp). A running
// trial's TLS folder holds the identity the master issued for its launch,
// never its agent's key, and is gone once its worker ends; that identity
// cannot act as a client or an agent, nor report in for another
// experiment's trial. Installing one costs its agent no synced write.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <unistd.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/master_link.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "runtime/tls/rank_identity_folders.hpp"
#include "runtime/wire/codec.hpp"
#include "tests/integration/cluster_fixture.hpp"
#include "tests/integration/slow_disk.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// Describes the trial's TLS folder, then waits for the test to release it
// (at most a minute: a sandboxed rank has a /tmp of its own, and never sees
// the release).
constexpr const char* kScript = R"SH(d="$VOLADOR_TLS_DIR"
echo "tls dir $d"
echo "modes $(stat -c %a "$d") $(stat -c %a "$d/node.key")"
echo "files $(ls "$d" | tr '\n' ' ')"
echo "subject $(openssl x509 -noout -subject -nameopt RFC2253 -in "$d/node.crt")"
echo "key sha $(sha256sum < "$d/node.key" | cut -c1-64)"
i=0
while [ ! -e "$RELEASE" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
echo "loss=0.5"
)SH";

std::string config(const fs::path& release) {
  return "name: identity\n"
         "entrypoint: sh trial.sh\n"
         "environment: {environment_variables: [RELEASE=" + release.string() + "]}\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "searcher:\n"
         "  name: single\n"
         "  metric: loss\n"
         "  smaller_is_better: true\n"
         "  max_length: {batches: 1}\n"
         "max_restarts: 0\n";
}

std::string sha256_of(const fs::path& file) {
  auto result = run_command({"/bin/sh", "-c", "sha256sum < \"$0\" | cut -c1-64", file.string()});
  REQUIRE(result.exit_code == 0);
  return result.out.substr(0, 64);
}

// The line of `logs` after `prefix`.
std::string line_after(const std::string& logs, const std::string& prefix) {
  std::smatch match;
  if (!std::regex_search(logs, match, std::regex(prefix + " ([^\n]*)"))) return {};
  return match[1];
}

// A rank identity of experiment 99 (not the test's), as a bundle and as an identity folder.
struct ForeignRank {
  fs::path bundle;
  fs::path tls_dir;
  ForeignRank(const fs::path& data_dir, const fs::path& dir) : bundle(dir / "rank.bundle"), tls_dir(dir / "rank-tls") {
    auto ca = tls::CertificateAuthority::open_or_create(data_dir / "tls" / "ca");
    REQUIRE(ca.has_value());
    auto identity = ca->issue_rank({.experiment_id = 99, .trial_id = 1, .run_id = 1, .rank = 0}, std::chrono::hours(1));
    REQUIRE(identity.has_value());
    REQUIRE(tls::write_bundle(bundle, *identity).has_value());
    REQUIRE(tls::install_identity(*identity, tls_dir).has_value());
  }
};

// What the master answers a hello for trial `trial_id` from the identity in `tls_dir`.
std::string hello_answer(const std::string& master, const fs::path& tls_dir, std::uint64_t trial_id) {
  auto endpoint = net::parse_endpoint(master);
  REQUIRE(endpoint.has_value());
  auto link = actors::MasterLink::connect(*endpoint, tls_dir, master::Timings{});
  REQUIRE(link.has_value());
  const wire::RankHello hello{.trial_id = trial_id, .run_id = 1, .rank = 0, .token = "guessed", .address = {}};
  std::string answer;
  caf::scoped_actor self{(*link)->system()};
  self->request((*link)->gateway(), std::chrono::seconds(30), actors::hello_atom::value, trial_id, wire::encode(hello),
                caf::actor{})
      .receive([&](const wire::Bytes&) { answer = "a group"; },
               [&](const caf::error& error) { answer = actors::from_caf_error(error).message; });
  return answer;
}

}  // namespace

TEST_CASE("A running trial presents its rank's own identity, which cannot act as a client, an agent or another experiment's rank") {
  TempDir dir;
  const auto data = dir.path() / "data";
  const auto project = dir.path() / "project";
  const auto release = dir.path() / "release";
  write_file(project / "trial.sh", kScript);
  Cluster cluster(data, 1);
  const auto experiment_id = submit(cluster, project, config(release));

  std::string logs, trial_id;
  REQUIRE(eventually([&] {
    const auto trials = describe_experiment(cluster, experiment_id)["trials"];
    if (trials.empty()) return false;
    trial_id = trials[0]["id"].dump();
    logs = cluster.cli({"trial", "logs", "--all", trial_id}).out;
    return logs.find("key sha") != std::string::npos;
  }, 120));
  INFO(logs);
  // Its folder: private, the rank's certificate and key with the CA's, not the agent's.
  const fs::path tls_dir = line_after(logs, "tls dir");
  CHECK(tls_dir.parent_path() == data / "agent-work" / "rank-identities");
  CHECK(line_after(logs, "modes") == "700 600");
  CHECK(line_after(logs, "files") == "ca.crt node.crt node.key ");
  CHECK(line_after(logs, "subject") == "subject=CN=rank:" + experiment_id + ":" + trial_id + ":1.0");
  CHECK(line_after(logs, "key sha") != sha256_of(data / "agent-work" / "tls" / "node.key"));

  ForeignRank rank(data, dir.path());
  {  // a rank's identity is refused a client's requests, whatever its token
    CHECK(cluster.cli({"experiment", "list"}).exit_code == 0);  // the admin bundle and the same token
    auto refused = run_command({binary("volador").string(), "-m", cluster.master_address(), "--bundle", rank.bundle.string(),
                                "experiment", "list"}, 60, cluster.admin_environment());
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Catch::Contains("'rank:99:1:1.0' may not make a client's request"));
  }
  {  // a rank's identity cannot register as an agent
    auto agent = run_command({binary("volador-node").string(), "agent", "--master", cluster.master_address(), "--bundle",
                              rank.bundle.string(), "--id", "impostor", "--work-dir", (dir.path() / "impostor").string(),
                              "--slots", "1"}, 60);
    CHECK(agent.exit_code != 0);
    CHECK_THAT(agent.out + agent.err, Catch::Contains("'rank:99:1:1.0' may not register as an agent"));
    CHECK(cluster.cli({"agent", "list"}).out.find("impostor") == std::string::npos);
  }
  {  // nor report in for another experiment's trial
    CHECK(hello_answer(cluster.master_address(), rank.tls_dir, std::stoull(trial_id)) ==
          "'rank:99:1:1.0' may not report in for a trial of experiment " + experiment_id);
  }

  write_file(release, "");
  REQUIRE(eventually([&] { return describe_experiment(cluster, experiment_id)["state"] == "COMPLETED"; }, 180));
  // The folder goes with the worker (kept warm a few seconds for a next trial).
  CHECK(eventually([&] { return !fs::exists(tls_dir); }, 60));
}

// An agent installs each fresh worker's identity on its actor's thread: with
// three synced writes that took 20 to 80 ms beside a busy journal (strace of
// a loaded bench row), and half a second a write here.
TEST_CASE("A worker's rank identity is installed without a synced write: on a disk slow to sync it takes a moment") {
  constexpr std::uint32_t kWritesPerSecond = 2;  // a synced write takes about 500 ms
  TempDir disk_dir;
  const auto work = disk_dir.path() / "work";
  auto disk = SlowDisk::make(disk_dir.path(), work, kWritesPerSecond);
  if (!disk) {
    WARN("skipped: " << disk.error().message);
    return;
  }
  REQUIRE((*disk)->synced_write_seconds() > 0.5 / kWritesPerSecond);  // else this test would prove nothing
  auto ca = tls::CertificateAuthority::open_or_create(disk_dir.path() / "ca");
  REQUIRE(ca);
  const auto agent_tls = disk_dir.path() / "agent-tls";
  REQUIRE(tls::install_identity(ca->issue("agent-1").value(), agent_tls));
  const auto rank = ca->issue_rank({.experiment_id = 1, .trial_id = 2, .run_id = 1, .rank = 0}, std::chrono::hours(1));
  REQUIRE(rank);
  (*disk)->slow_down(::getpid());
  const auto writes_before = (*disk)->writes_issued();
  const auto started = std::chrono::steady_clock::now();
  const auto dir = tls::install_rank_identity(rank->certificate, rank->private_key, agent_tls, work, 1);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  REQUIRE(dir);
  INFO("installing took " << took.count() << " s");
  CHECK((*disk)->writes_issued() == writes_before);
  CHECK(took.count() < 0.5 / kWritesPerSecond);
  const auto installed = tls::load_identity(*dir);
  REQUIRE(installed);
  CHECK(installed->private_key == rank->private_key);
}
