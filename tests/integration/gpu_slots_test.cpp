// End to end with fake GPUs (VOLADOR_FAKE_GPUS, the discovery's test seam):
// an agent offers one slot per GPU, the client shows their type, model and
// device, every rank sees exactly its own GPU through CUDA_VISIBLE_DEVICES,
// two trials never share one, and requests no slot kind can hold are refused.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// A command trial on `slots` slots that prints what its rank was given, then
// stays a moment so that trials overlap, and reports a result.
void write_device_probe(const fs::path& project, int slots) {
  write_file(project / "probe.sh",
             "echo \"rank $RANK slot-type $VOLADOR_SLOT_TYPE sees [$CUDA_VISIBLE_DEVICES]\"\n"
             "sleep 2\n"
             "echo accuracy=1\n");
  write_file(project / "distributed.yaml",
             "name: device-probe\n"
             "entrypoint: sh probe.sh\n"
             "hyperparameters: {global_batch_size: 60}\n"
             "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 1}}\n"
             "max_restarts: 0\n"
             "resources: {slots_per_trial: " + std::to_string(slots) + "}\n");
}

// What each rank of the experiment's trial printed: the device list it saw.
std::vector<std::string> devices_seen(const Cluster& cluster, const std::string& experiment_id) {
  const auto trial = describe_experiment(cluster, experiment_id)["trials"][0]["id"].dump();
  const auto logs = cluster.cli({"trial", "logs", "--all", trial}).out;
  std::vector<std::string> seen;
  const std::regex line(R"(rank \d+ slot-type (\w+) sees \[([^\]]*)\])");
  for (auto it = std::sregex_iterator(logs.begin(), logs.end(), line); it != std::sregex_iterator(); ++it)
    seen.push_back((*it)[1].str() + " " + (*it)[2].str());
  return seen;
}

bool completed(const Cluster& cluster, const std::string& id) {
  return eventually([&] { return describe_experiment(cluster, id)["state"] == "COMPLETED"; }, 60);
}

}  // namespace

TEST_CASE("With fake GPUs an agent offers one slot per device and every rank sees its own GPU alone") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(16, {}, {{"VOLADOR_FAKE_GPUS", "4:Fake A100"}});

  const auto agents = cluster.cli({"agent", "list", "--json"}).json();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0]["slots"] == 4);  // one per GPU, not --slots 16
  CHECK(agents[0]["slot_types"] == nlohmann::json({{"gpu Fake A100 (80 GiB)", 4}}));
  const auto slots = cluster.cli({"slot", "list", "--json"}).json();
  REQUIRE(slots.size() == 4);
  CHECK(slots[2]["type"] == "gpu");
  CHECK(slots[2]["model"] == "Fake A100");
  CHECK(slots[2]["memory_bytes"] == 80ULL << 30);
  CHECK(slots[2]["device"].get<std::string>().starts_with("GPU-fake-"));

  // Two 2-rank trials at once take all four GPUs, one each.
  write_device_probe(dir.path() / "a", 2);
  write_device_probe(dir.path() / "b", 2);
  const auto first = submit(cluster, dir.path() / "a");
  const auto second = submit(cluster, dir.path() / "b");
  REQUIRE(completed(cluster, first));
  REQUIRE(completed(cluster, second));
  std::set<std::string> devices;
  for (const auto& id : {first, second}) {
    const auto seen = devices_seen(cluster, id);
    INFO(cluster.cli({"trial", "logs", "--all", describe_experiment(cluster, id)["trials"][0]["id"].dump()}).out);
    REQUIRE(seen.size() == 2);
    for (const auto& s : seen) {
      CHECK(s.starts_with("gpu GPU-fake-"));
      CHECK(s.find(',') == std::string::npos);  // one device per rank
      devices.insert(s);
    }
  }
  std::set<std::string> offered;
  for (const auto& slot : slots) offered.insert("gpu " + slot["device"].get<std::string>());
  CHECK(devices == offered);  // four distinct GPUs: no two ranks shared one

  // More GPUs than one trial could ever get is refused at submission.
  write_device_probe(dir.path() / "c", 5);
  const auto refused = cluster.cli({"experiment", "create", (dir.path() / "c/distributed.yaml").string(),
                                    (dir.path() / "c").string()});
  INFO(refused.err);
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find("5 slots per trial can never be scheduled in pool 'default': its agents can give one trial at most 4 slots") !=
        std::string::npos);
}

TEST_CASE("An agent told to offer CPU slots on a GPU host hides the GPUs from its ranks") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(2, {"--slot-type", "cpu"}, {{"VOLADOR_FAKE_GPUS", "4"}});
  const auto agents = cluster.cli({"agent", "list", "--json"}).json();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0]["slot_types"] == nlohmann::json({{"cpu", 2}}));
  write_device_probe(dir.path() / "p", 2);
  const auto id = submit(cluster, dir.path() / "p");
  REQUIRE(completed(cluster, id));
  CHECK(devices_seen(cluster, id) == std::vector<std::string>{"cpu ", "cpu "});
}

TEST_CASE("An agent asked for GPU slots on a host without GPUs refuses to start and says why") {
  TempDir dir;
  auto result = run_command({binary("volador-node").string(), "agent", "-m", "127.0.0.1:1", "--bundle",
                             issue_test_bundle(dir.path(), "no-gpu").string(), "--work-dir", (dir.path() / "w").string(),
                             "--slot-type", "gpu"});
  CHECK(result.exit_code == 1);
  CHECK((result.out + result.err).find("--slot-type gpu: no GPU found on this host") != std::string::npos);
}
