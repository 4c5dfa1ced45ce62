// End to end: a trial with environment.image runs its rank in a container of
// that image (actors/image_ranks.hpp), and a stopped one's container goes;
// in a pool where only some agents have a runtime, image trials go to those.
// No registry can be reached here: the image is built from the host's
// /bin/sh and /bin/sleep, their libraries and a marker file, and imported
// (podman import).
// Skipped, with a WARN saying why, where podman is absent or cannot run a
// container on this host.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

constexpr const char* kImage = "localhost/volador-test:image-ranks";
constexpr const char* kMarker = "volador test image 1f4c";

// The container names of the test agent's ranks (actors/image_ranks.hpp: volador-<agent>-<pid>-worker-<n>).
constexpr const char* kRankContainers = "name=^volador-test-agent-";

// The image, built into `dir` and imported; removed, with any container of
// the test agent's, at the end. `usable` is false (and `why_not` says why)
// where podman is missing or cannot run it here.
struct TestImage {
  bool usable = false;
  std::string why_not;

  explicit TestImage(const fs::path& dir) {
    if (run_command({"sh", "-c", "command -v podman"}).exit_code != 0) {
      why_not = "podman is not on PATH";
      return;
    }
    const auto root = dir / "rootfs";
    // /bin/sh, /bin/sleep and what ldd lists for them, at their paths; the marker in /etc.
    const auto built = run_command(
        {"sh", "-c",
         "set -e; mkdir -p \"$1/bin\" \"$1/etc\"; cp -L /bin/sh /bin/sleep \"$1/bin/\"; "
         "for lib in $( (ldd /bin/sh; ldd /bin/sleep) | grep -o '/[^ ]*'); do mkdir -p \"$1$(dirname \"$lib\")\"; "
         "cp -L \"$lib\" \"$1$lib\"; done; "
         "echo \"$2\" > \"$1/etc/volador-image\"; tar -C \"$1\" -c . | podman import - \"$3\" >/dev/null",
         "sh", root.string(), kMarker, kImage},
        300);
    if (built.exit_code != 0) {
      why_not = "podman import failed: " + built.err;
      return;
    }
    usable = runs(false) || runs(true);
  }

  ~TestImage() {
    run_command({"sh", "-c", std::string("podman ps -a -q --filter '") + kRankContainers +
                                 "' | xargs -r podman rm -f -t 0 >/dev/null; podman rmi -f " + kImage + " >/dev/null"},
                300);
  }

  // Whether a container of the image runs here (with runc: crun refuses hybrid cgroups), with the init and
  // limits an agent sets.
  bool runs(bool runc) {
    std::vector<std::string> argv{"podman"};
    if (runc) argv.insert(argv.end(), {"--runtime", "runc"});
    // No network: podman's default one would add a bridge and veth links to the host's namespace,
    // which the network-namespace tests running beside this one check stay untouched.
    argv.insert(argv.end(), {"run", "--rm", "--init", "--network", "none", "--ulimit", "nofile=1024:1024", "--ulimit",
                             "nproc=1024:1024", kImage, "/bin/sh", "-c", "echo ran"});
    const auto ran = run_command(argv, 300);
    if (ran.exit_code == 0 && ran.out.find("ran") != std::string::npos) return true;
    why_not += (why_not.empty() ? "" : "; ") + std::string(runc ? "with runc: " : "") + "podman run failed: " + ran.err;
    return false;
  }
};

// Containers of the test agent's ranks that podman still has.
std::string rank_containers() {
  return run_command({"podman", "ps", "-a", "--format", "{{.Names}}", "--filter", kRankContainers}, 300).out;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A one-trial command experiment running `script` in the image, with `resources` (config lines) if any.
std::string image_config(const std::string& script, const std::string& resources = "") {
  return std::string("name: image\n"
                     "entrypoint: sh ") + script + "\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "searcher:\n"
         "  name: single\n"
         "  metric: done\n"
         "  max_length: {batches: 1}\n"
         "max_restarts: 0\n"
         "environment:\n"
         "  image: " + kImage + "\n" + resources;
}

// An experiment of `trials` command trials at once (a grid), each running
// `script`, in the image when `in_image`.
std::string grid_config(const std::string& script, int trials, bool in_image) {
  const auto count = std::to_string(trials);
  return "name: grid\n"
         "entrypoint: sh " + script + "\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "  width: {type: int, minval: 1, maxval: " + count + ", count: " + count + "}\n"
         "searcher: {name: grid, metric: done, max_concurrent_trials: " + count + ", max_length: {batches: 1}}\n"
         "max_restarts: 0\n" +
         (in_image ? std::string("environment:\n  image: ") + kImage + "\n" : "");
}

// The agents of `cluster` that hold slots now, by id.
std::set<std::string> busy_agents(const Cluster& cluster) {
  std::set<std::string> busy;
  for (const auto& agent : cluster.cli({"agent", "list", "--json"}).json())
    if (agent["used_slots"] > 0) busy.insert(agent["id"].get<std::string>());
  return busy;
}

// The image and a cluster whose one agent runs images with podman; no
// cluster (and a WARN saying why) where podman cannot run the image here.
struct ImageLab {
  TempDir dir;
  TestImage image{dir.path()};
  std::optional<Cluster> cluster;

  ImageLab() {
    if (!image.usable) {
      WARN("skipped: podman cannot run a container here: " + image.why_not);
      return;
    }
    cluster.emplace(dir.path() / "data");
    cluster->start_master();
    start_agent();
  }

  void start_agent() { cluster->start_agent(1, {"--sandbox", "on", "--container-runtime", "podman"}); }

  // An experiment run to its end.
  struct Ended {
    nlohmann::json experiment;  // `experiment describe --json`
    std::string trial_log;      // its one trial's, whole

    // Checks that its trial ended in ERROR with `reason` in its log.
    void check_error(const std::string& reason) const {
      INFO(trial_log);
      CHECK(experiment["trials"][0]["state"] == "ERROR");
      CHECK(trial_log.find(reason) != std::string::npos);
    }
  };
  // Submits a one-trial experiment whose command waits for good and waits
  // until its container runs; the experiment's id.
  std::string start_waiting_trial() {
    const auto project = dir.path() / "project";
    write_file(project / "wait.sh", "echo waiting; sleep 1000\n");
    write_file(project / "distributed.yaml", image_config("wait.sh"));
    const auto experiment = submit(*cluster, project);
    REQUIRE(eventually([] { return !rank_containers().empty(); }, 300));
    return experiment;
  }
  // Runs the one-trial experiment of `script` (its text) under `resources`
  // (image_config) to its end; its container is gone afterwards.
  Ended run_to_end(const std::string& script, const std::string& resources = "") {
    const auto project = dir.path() / "project";
    write_file(project / "script.sh", script);
    write_file(project / "distributed.yaml", image_config("script.sh", resources));
    Ended ended{create_and_follow(*cluster, project, 600).json(), ""};
    REQUIRE(ended.experiment["trials"].size() == 1);
    ended.trial_log = cluster->cli({"trial", "logs", "--all", ended.experiment["trials"][0]["id"].dump()}).out;
    CHECK(eventually([] { return rank_containers().empty(); }, 120));
    return ended;
  }
};

}  // namespace

TEST_CASE("A trial with environment.image runs in a container of that image and its container is gone after") {
  ImageLab lab;
  if (!lab.cluster) return;
  auto& cluster = *lab.cluster;
  const auto agents = cluster.cli({"agent", "list", "--json"}).json();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0]["container_runtime"] == "podman");
  // Builtins only: the image has nothing but sh.
  const auto ended = lab.run_to_end(
      "while read line; do echo \"marker: $line\"; done < /etc/volador-image\n"
      "if [ -e /etc/debian_version ]; then echo 'system: the host'; else echo 'system: the image'; fi\n"
      "echo \"folder: $PWD\"\n"
      "echo done=1\n");
  const auto& logs = ended.trial_log;
  INFO(logs);
  CHECK(ended.experiment["state"] == "COMPLETED");
  CHECK(logs.find(std::string("marker: ") + kMarker) != std::string::npos);  // the image's file
  CHECK(logs.find("system: the image") != std::string::npos);                // not the host's /etc
  CHECK(logs.find("folder: /run/volador/work/") != std::string::npos);       // its working folder, as sandboxed
}

TEST_CASE("A killed image trial's container is removed") {
  ImageLab lab;
  if (!lab.cluster) return;
  const auto experiment = lab.start_waiting_trial();
  REQUIRE(lab.cluster->cli({"experiment", "kill", experiment}).exit_code == 0);
  CHECK(eventually([] { return rank_containers().empty(); }, 180));
}

TEST_CASE("A rank killed at its memory limit in a container ends in ERROR with the limit in its log") {
  ImageLab lab;
  if (!lab.cluster) return;
  // The image has only sh: a string that doubles until the kernel's OOM killer ends it.
  lab.run_to_end("x=a; while :; do x=\"$x$x\"; done\n", "resources:\n  memory_limit: 64M\n")
      .check_error("killed: memory limit 64 MiB");
}

TEST_CASE("A fork bomb in a container ends in ERROR with its process limit in the log") {
  ImageLab lab;
  if (!lab.cluster) return;
  // More sleeps than the limit allows, bounded by its own loop (as in trial_limits_test.cpp) should the limit do nothing.
  lab.run_to_end(
         "i=0\n"
         "while [ $i -lt 300 ]; do sleep 120 & i=$((i+1)); done\n"
         "wait\n"
         "echo done=1\n",
         "resources:\n  max_processes: 64\n")
      .check_error("killed: process limit 64");
}

TEST_CASE("The containers of an agent killed with an image trial running are removed when it starts again") {
  ImageLab lab;
  if (!lab.cluster) return;
  lab.start_waiting_trial();
  const auto left = rank_containers();
  lab.cluster->kill_agent();
  CHECK(rank_containers() == left);  // the runtime keeps it running: nothing of the agent's removes it
  lab.start_agent();
  const auto first = left.substr(0, left.find('\n'));
  CHECK(eventually([&] { return rank_containers().find(first) == std::string::npos; }, 120));
  const auto log = file_text(lab.dir.path() / "data" / "nodes.log");
  CHECK(log.find("removed 1 container(s) an earlier run of it left") != std::string::npos);
}

TEST_CASE("An agent whose container runtime hangs starts within seconds and runs no images") {
  TempDir dir;
  // A podman that never answers, first on PATH: a hung daemon or a storage lock held for minutes.
  const auto fake = dir.path() / "hung-runtime";
  write_file(fake / "podman", "#!/bin/sh\nexec sleep 600\n");
  fs::permissions(fake / "podman", fs::perms::owner_all);
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  const auto started = std::chrono::steady_clock::now();
  cluster.start_agent(1, {"--container-runtime", "auto"}, {{"PATH", fake.string() + ":" + std::getenv("PATH")}});
  const auto waited = std::chrono::steady_clock::now() - started;
  CHECK(waited < std::chrono::seconds(45));
  const auto agents = cluster.cli({"agent", "list", "--json"}).json();
  REQUIRE(agents.size() == 1);
  CHECK(agents[0]["container_runtime"] != "podman");
}

TEST_CASE("In a pool where one agent runs images and one does not, image trials all run on the first, others on both") {
  ImageLab lab;
  if (!lab.cluster) return;
  auto& cluster = *lab.cluster;
  cluster.start_named_agent("plain", 1);  // no container runtime; "test-agent" has podman
  // Two image trials at once: the second waits for the first's slot rather
  // than take the free one on "plain" (where its launch would fail: ERROR).
  const auto images = lab.dir.path() / "images";
  write_file(images / "marker.sh", "while read line; do echo \"marker: $line\"; done < /etc/volador-image\necho done=1\n");
  write_file(images / "distributed.yaml", grid_config("marker.sh", 2, true));
  const auto ended = create_and_follow(cluster, images, 600).json();
  CHECK(ended["state"] == "COMPLETED");
  REQUIRE(ended["trials"].size() == 2);
  for (const auto& trial : ended["trials"]) {
    const auto log = cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
    INFO(log);
    CHECK(trial["state"] == "COMPLETED");
    CHECK(log.find(std::string("marker: ") + kMarker) != std::string::npos);
  }
  // Two trials without an image at once: one on each agent.
  const auto plain = lab.dir.path() / "plain";
  write_file(plain / "wait.sh", "sleep 1000\n");
  const auto experiment = submit(cluster, plain, grid_config("wait.sh", 2, false));
  CHECK(eventually([&] { return busy_agents(cluster) == std::set<std::string>{"plain", "test-agent"}; }, 120));
  CHECK(cluster.cli({"experiment", "kill", experiment}).exit_code == 0);
}
