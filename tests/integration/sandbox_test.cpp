// End to end: every rank runs in a bubblewrap sandbox (actors/worker_sandbox.hpp):
// what a trial sees of the host, its bind mounts and /dev/shm, allreduce
// between two sandboxed ranks, and what is refused at submission or launch.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// A command trial config of `count` trials at once (one slot each), `rest` appended.
std::string script_config(const std::string& script, int count, const std::string& rest) {
  return "name: sandbox\n"
         "entrypoint: sh " + script + "\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "  n: {type: int, minval: 1, maxval: 1000}\n"
         "searcher:\n"
         "  name: random\n"
         "  max_trials: " + std::to_string(count) + "\n"
         "  max_concurrent_trials: " + std::to_string(count) + "\n"
         "  metric: done\n"
         "  max_length: {batches: 1}\n"
         "max_restarts: 0\n" + rest;
}

// What the trial's shell sees, one `name=0|1` or `name=N` line each (stdout metrics).
constexpr const char* kLookAround =
    "cat /data/set/numbers.txt\n"
    "if echo x > /data/set/new.txt 2>/dev/null; then echo ro_write=1; else echo ro_write=0; fi\n"
    "echo written > /data/out/result-$(cat /proc/sys/kernel/random/uuid).txt && echo rw_write=1\n"
    "df -k /dev/shm | awk 'NR==2 {print \"shm_kib=\" $2}'\n"
    "seen() { if [ -e \"$1\" ]; then echo \"$2=1\"; else echo \"$2=0\"; fi; }\n"
    "seen \"$MASTER_DATA/journal\" master_data_seen\n"
    "seen \"$MASTER_DATA/tls/ca\" master_ca_seen\n"
    "seen \"$AGENT_WORK/tls\" agent_work_seen\n"
    "seen /etc/ssh/ssh_host_ed25519_key host_key_seen\n"
    "echo own_folders=$(ls /run/volador/work | wc -l)\n"
    "echo processes=$(ls /proc | grep -c '^[0-9]')\n"
    "echo done=1\n";

std::string all_logs(const Cluster& cluster, const nlohmann::json& experiment) {
  std::string logs;
  for (const auto& trial : experiment["trials"]) logs += cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
  return logs;
}

// A one-trial experiment of a trivial script with `rest` in PROJECT, followed to its end: its trial must end in ERROR; its log.
std::string failed_trial_logs(const Cluster& cluster, const fs::path& project, const std::string& rest) {
  write_file(project / "look.sh", "echo done=1\n");
  write_file(project / "distributed.yaml", script_config("look.sh", 1, rest));
  const auto experiment = create_and_follow(cluster, project, 240).json();
  REQUIRE(experiment["trials"].size() == 1);
  CHECK(experiment["trials"][0]["state"] == "ERROR");
  return cluster.cli({"trial", "logs", "--all", experiment["trials"][0]["id"].dump()}).out;
}

// The client's refusal of a one-trial experiment with `rest` in PROJECT (checked: nothing was created).
std::string refusal(const Cluster& cluster, const fs::path& project, const std::string& rest) {
  write_file(project / "look.sh", "echo done=1\n");
  write_file(project / "distributed.yaml", script_config("look.sh", 1, rest));
  const auto created = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  CHECK(created.exit_code == 1);
  CHECK(cluster.cli({"experiment", "list", "--json"}).json().empty());
  return created.err;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A master and the test agent with `slots` slots, its ranks sandboxed.
void start_sandboxed(Cluster& cluster, std::uint32_t slots) {
  cluster.start_master();
  cluster.start_agent(slots, {"--sandbox", "on"});
}

}  // namespace

TEST_CASE("A sandboxed trial reads its mounted data set, cannot write a read-only mount, has its shm_size and sees no other folder") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 2);
  const auto set = dir.path() / "dataset", out = dir.path() / "results", storage = dir.path() / "checkpoints";
  write_file(set / "numbers.txt", "dataset_sum=42\n");
  fs::create_directories(out);
  fs::create_directories(storage);
  const auto project = dir.path() / "project";
  write_file(project / "look.sh", kLookAround);
  write_file(project / "distributed.yaml",
             script_config("look.sh", 2,
                           "resources: {shm_size: 64M}\n"
                           "checkpoint_storage: {type: shared_fs, host_path: " + storage.string() + "}\n"
                           "bind_mounts:\n"
                           "  - {host_path: " + set.string() + ", container_path: /data/set, read_only: true}\n"
                           "  - {host_path: " + out.string() + ", container_path: /data/out}\n"
                           "environment:\n"
                           "  environment_variables: [MASTER_DATA=" + (dir.path() / "data").string() +
                           ", AGENT_WORK=" + (dir.path() / "data" / "agent-work").string() + "]\n"));
  const auto experiment = create_and_follow(cluster, project, 240).json();
  REQUIRE(experiment["trials"].size() == 2);
  const auto logs = all_logs(cluster, experiment);
  INFO(logs);
  CHECK(experiment["state"] == "COMPLETED");
  CHECK(count(logs, "dataset_sum=42") == 2);       // the mounted data set is read
  CHECK(count(logs, "ro_write=0") == 2);           // the read-only mount cannot be written
  CHECK(count(logs, "rw_write=1") == 2);           // the other one can, and the host sees it
  CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 2);
  CHECK_FALSE(fs::exists(set / "new.txt"));
  CHECK(count(logs, "shm_kib=65536") == 2);        // df /dev/shm says shm_size
  CHECK(count(logs, "master_data_seen=0") == 2);   // nor the master's journal
  CHECK(count(logs, "master_ca_seen=0") == 2);     // nor its CA
  CHECK(count(logs, "agent_work_seen=0") == 2);    // nor the agent's own certificate and key
  CHECK(count(logs, "host_key_seen=0") == 2);
  CHECK(count(logs, "own_folders=1") == 2);        // its worker's folder holds its own trial alone
}

// `folder` bind-mounted on itself and made shared, so that mounts made under it propagate to its slaves; undone at the end.
struct SharedMount {
  fs::path folder;
  bool made = false;
  explicit SharedMount(fs::path at) : folder(std::move(at)) {
    fs::create_directories(folder);
    made = run_command({"mount", "--bind", folder.string(), folder.string()}).exit_code == 0 &&
           run_command({"mount", "--make-shared", folder.string()}).exit_code == 0;
  }
  ~SharedMount() { run_command({"umount", "-R", folder.string()}); }
};

TEST_CASE("A mount made on the host under a bind mount's host_path while the trial runs appears inside its sandbox") {
  TempDir dir;
  SharedMount set(dir.path() / "dataset");
  if (!set.made) {
    WARN("skipped: making a shared mount needs root");
    return;
  }
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 1);
  const auto project = dir.path() / "project";
  // Ready once its sandbox is up; then up to 120 s for the host's later mount.
  write_file(project / "late.sh",
             "touch /data/set/ready\n"
             "i=0; while [ ! -e /data/set/late/marker ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done\n"
             "if [ -e /data/set/late/marker ]; then echo late_mount_seen=1; else echo late_mount_seen=0; fi\n"
             "echo done=1\n");
  write_file(project / "distributed.yaml",
             script_config("late.sh", 1,
                           "bind_mounts: [{host_path: " + set.folder.string() +
                               ", container_path: /data/set, propagation: rslave}]\n"));
  const auto id = submit(cluster, project);
  REQUIRE(eventually([&] { return fs::exists(set.folder / "ready"); }, 120));
  fs::create_directories(set.folder / "late");
  REQUIRE(run_command({"mount", "-t", "tmpfs", "-o", "size=1m", "late-mount", (set.folder / "late").string()}).exit_code == 0);
  write_file(set.folder / "late" / "marker", "here\n");
  REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] == "COMPLETED"; }, 180));
  const auto logs = all_logs(cluster, describe_experiment(cluster, id));
  INFO(logs);
  CHECK(count(logs, "late_mount_seen=1") == 1);
}

TEST_CASE("Two sandboxed ranks of one trial allreduce over shared memory and learn as one rank") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 2);
  const auto project = dir.path() / "project";
  write_file(project / "distributed.yaml",
             native_trial_config("shm", "resources: {slots_per_trial: 2, shm_size: 32M}\n"
                                        "searcher: {name: single, metric: validation_loss, max_length: {batches: 40}}\n"
                                        "max_restarts: 0\n"));
  const auto experiment = create_and_follow(cluster, project, 240).json();
  REQUIRE(experiment["trials"].size() == 1);
  const auto logs = cluster.cli({"trial", "logs", "--all", experiment["trials"][0]["id"].dump()}).out;
  INFO(logs);
  CHECK(experiment["state"] == "COMPLETED");
  CHECK(count(logs, "data plane: shared memory, 2 ranks on 1 host") == 2);
}

TEST_CASE("A bind mount whose host_path is missing fails the trial at launch naming the mount") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 1);
  const auto missing = dir.path() / "no-such-dataset";
  const auto logs = failed_trial_logs(cluster, dir.path() / "project",
                                      "bind_mounts: [{host_path: " + missing.string() + ", container_path: /data}]\n");
  CHECK_THAT(logs, Catch::Contains("bind_mounts[0] (" + missing.string() + " -> /data): host_path " + missing.string() +
                                   " does not exist on this agent's host"));
}

TEST_CASE("A bind mount into a system folder or a relative one is refused at submission at its line") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 1);
  const auto err = refusal(cluster, dir.path() / "project",
                           "bind_mounts:\n  - {host_path: /srv, container_path: /usr/local}\n"
                           "  - {host_path: /srv, container_path: data}\n");
  CHECK_THAT(err, Catch::Contains("distributed.yaml:14:39: bind_mounts[0].container_path: would shadow the system folder "
                                  "/usr the sandbox needs"));
  CHECK_THAT(err, Catch::Contains("distributed.yaml:15:39: bind_mounts[1].container_path: must be an absolute path (such "
                                  "as /data), got 'data'"));
}

TEST_CASE("A config with a container image is refused at submission naming the pool: no agent there can run images") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  start_sandboxed(cluster, 1);
  const auto err = refusal(cluster, dir.path() / "project",
                           "environment:\n  image: pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n"
                           "  force_pull_image: true\n"
                           "  registry_auth: {username: u, password: p, serveraddress: registry.local}\n");
  CHECK_THAT(err, Catch::Contains("distributed.yaml: environment.image: no agent in pool default can run images; "
                                  "remove environment.image or install podman"));
  const auto pull = refusal(cluster, dir.path() / "project2", "environment:\n  force_pull_image: true\n");
  CHECK_THAT(pull, Catch::Contains("distributed.yaml: environment.force_pull_image: no agent in pool default can run "
                                   "images; remove environment.force_pull_image or install podman"));
}

TEST_CASE("An agent that cannot build sandboxes refuses to start and says how to fix it") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  const auto agent = run_command({binary("volador-node").string(), "agent", "--master", cluster.master_address(), "--bundle",
                                  issue_test_bundle(dir.path() / "data", "no-bwrap").string(), "--work-dir",
                                  (dir.path() / "work").string()},
                                 60, {{"PATH", "/nonexistent"}});
  CHECK(agent.exit_code == 1);
  CHECK_THAT(agent.out + agent.err, Catch::Contains("bwrap is not on PATH: install Debian's bubblewrap"));
  CHECK_THAT(agent.out + agent.err, Catch::Contains("--sandbox off"));
}

TEST_CASE("With --sandbox off a trial with bind mounts or shm_size fails at launch naming the field: they cannot be honoured") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  cluster.start_agent(1, {"--sandbox", "off"});
  const auto mounts =
      failed_trial_logs(cluster, dir.path() / "mounts", "bind_mounts: [{host_path: /srv, container_path: /data}]\n");
  CHECK_THAT(mounts, Catch::Contains("bind_mounts (/srv -> /data) need the sandbox, and agent"));
  CHECK_THAT(mounts, Catch::Contains("runs with --sandbox off"));
  const auto shm = failed_trial_logs(cluster, dir.path() / "shm", "resources: {shm_size: 64M}\n");
  CHECK_THAT(shm, Catch::Contains("resources.shm_size (64 MiB) needs the sandbox, which gives each rank a /dev/shm of "
                                  "that size, and agent"));
}
