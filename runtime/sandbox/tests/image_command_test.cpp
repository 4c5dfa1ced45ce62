#include <catch2/catch.hpp>

#include <algorithm>

#include "runtime/sandbox/container_runtime.hpp"
#include "runtime/sandbox/host_libraries.hpp"
#include "runtime/sandbox/image_command.hpp"

using namespace volador::sandbox;

namespace {

SandboxSpec example() {
  SandboxSpec spec;
  spec.system_folders = {"/usr", "/etc"};  // the image's own system is used instead
  spec.masked_files = {"/etc/shadow"};
  spec.devices = {"/dev/nvidia0"};
  spec.mounts = {{"/var/lib/work/workers/worker-3", "/run/volador/work", false}, {"/mnt/datasets/mnist", "/data", true}};
  spec.shm_bytes = 256ull << 20;
  spec.working_dir = "/run/volador/work/trial-7-run-1-rank-0";
  return spec;
}

ImageRun podman_run() {
  ImageRun run;
  run.image = "debian:12";
  run.container_name = "volador-a1-w3";
  run.variables = {"VOLADOR_TOKEN", "HOME"};
  return run;
}

std::size_t find_sequence(const std::vector<std::string>& args, const std::vector<std::string>& expected) {
  auto it = std::search(args.begin(), args.end(), expected.begin(), expected.end());
  return it == args.end() ? std::string::npos : static_cast<std::size_t>(it - args.begin());
}

}  // namespace

TEST_CASE("An image run is removed when it ends, on the host's network, named, without capabilities") {
  const auto args = image_command(example(), podman_run(), {"/bin/sh", "-c", "exec worker"});
  REQUIRE(args.size() > 3);
  CHECK(args[0] == "podman");
  CHECK(args[1] == "run");
  for (const auto* flag : {"--rm", "--init"}) CHECK(std::ranges::count(args, std::string(flag)) == 1);
  CHECK(find_sequence(args, {"--network", "host"}) != std::string::npos);
  CHECK(find_sequence(args, {"--name", "volador-a1-w3"}) != std::string::npos);
  CHECK(find_sequence(args, {"--cap-drop", "ALL"}) != std::string::npos);
  CHECK(find_sequence(args, {"--pull", "missing"}) != std::string::npos);
}

TEST_CASE("The sandbox's mounts, devices, /dev/shm and working folder become the runtime's options") {
  const auto args = image_command(example(), podman_run(), {"/bin/true"});
  CHECK(find_sequence(args, {"--volume", "/var/lib/work/workers/worker-3:/run/volador/work"}) != std::string::npos);
  CHECK(find_sequence(args, {"--volume", "/mnt/datasets/mnist:/data:ro"}) != std::string::npos);
  CHECK(find_sequence(args, {"--device", "/dev/nvidia0"}) != std::string::npos);
  CHECK(find_sequence(args, {"--shm-size", std::to_string(256ull << 20)}) != std::string::npos);
  CHECK(find_sequence(args, {"--workdir", "/run/volador/work/trial-7-run-1-rank-0"}) != std::string::npos);
  CHECK(std::ranges::count(args, std::string("/usr")) == 0);  // the image's system, not the host's
  CHECK(std::ranges::count(args, std::string("/etc/shadow")) == 0);
}

TEST_CASE("Variables are passed by name only, so their values stay off the command line") {
  const auto args = image_command(example(), podman_run(), {"/bin/true"});
  CHECK(find_sequence(args, {"--env", "VOLADOR_TOKEN"}) != std::string::npos);
  CHECK(find_sequence(args, {"--env", "HOME"}) != std::string::npos);
  CHECK(std::ranges::none_of(args, [](const std::string& arg) { return arg.find('=') != std::string::npos; }));
}

TEST_CASE("The command follows the image: its first word as the entrypoint, so the image's own one is not used") {
  const auto args = image_command(example(), podman_run(), {"/bin/sh", "-c", "exec worker"});
  REQUIRE(args.size() >= 5);
  const auto at = find_sequence(args, {"--entrypoint", "/bin/sh", "debian:12", "-c", "exec worker"});
  CHECK(at == args.size() - 5);
}

TEST_CASE("force_pull_image pulls always and the limits become --memory and --pids-limit") {
  auto run = podman_run();
  run.force_pull = true;
  run.memory_bytes = 64ull << 20;
  run.max_processes = 128;
  const auto args = image_command(example(), run, {"/bin/true"});
  CHECK(find_sequence(args, {"--pull", "always"}) != std::string::npos);
  CHECK(find_sequence(args, {"--memory", std::to_string(64ull << 20)}) != std::string::npos);
  CHECK(find_sequence(args, {"--pids-limit", "128"}) != std::string::npos);
  CHECK(std::ranges::count(image_command(example(), podman_run(), {"/bin/true"}), std::string("--memory")) == 0);
}

TEST_CASE("Registry credentials go in an auth file, never on the command line: podman's --authfile, docker's --config") {
  auto run = podman_run();
  run.auth_file = auth_file_in("/var/lib/work/registry-auth/worker-3");
  const auto podman = image_command(example(), run, {"/bin/true"});
  CHECK(find_sequence(podman, {"--authfile", "/var/lib/work/registry-auth/worker-3/config.json"}) != std::string::npos);
  run.runtime = "docker";
  const auto docker = image_command(example(), run, {"/bin/true"});
  CHECK(find_sequence(docker, {"docker", "--config", "/var/lib/work/registry-auth/worker-3", "run"}) == 0);
  CHECK(std::ranges::count(docker, std::string("--authfile")) == 0);

  const auto file = registry_auth_file({"alice", "s3cret", "registry.example.com"});
  CHECK(file.find("s3cret") == std::string::npos);
  CHECK(file.find("\"registry.example.com\"") != std::string::npos);
  CHECK(file.find("\"YWxpY2U6czNjcmV0\"") != std::string::npos);  // base64("alice:s3cret")
}

TEST_CASE("A container is removed by name whatever its state") {
  CHECK(container_removal_command("podman", "volador-a1-w3") ==
        std::vector<std::string>{"podman", "rm", "--force", "--ignore", "--time", "0", "volador-a1-w3"});
  CHECK(container_removal_command("docker", "volador-a1-w3") ==
        std::vector<std::string>{"docker", "rm", "--force", "volador-a1-w3"});
}

TEST_CASE("A container carries its agent's label and writes its id where the agent reads it") {
  auto run = podman_run();
  run.owner = "gpu-node-1";
  run.id_file = "/var/lib/work/container-ids/worker-3";
  const auto args = image_command(example(), run, {"/bin/true"});
  CHECK(find_sequence(args, {"--label", "volador.agent=gpu-node-1"}) != std::string::npos);
  CHECK(find_sequence(args, {"--cidfile", "/var/lib/work/container-ids/worker-3"}) != std::string::npos);
  CHECK(std::ranges::count(image_command(example(), podman_run(), {"/bin/true"}), std::string("--label")) == 0);
  for (const std::string runtime : {"podman", "docker"})
    CHECK(owned_containers_command(runtime, "gpu-node-1") ==
          std::vector<std::string>{runtime, "ps", "--all", "--quiet", "--no-trunc", "--filter", "label=volador.agent=gpu-node-1"});
}

TEST_CASE("The container runtime choice: auto tries podman then docker, none tries nothing, anything else is refused") {
  CHECK(runtime_candidates(*parse_container_runtime_choice("auto")) == std::vector<std::string>{"podman", "docker"});
  CHECK(runtime_candidates(*parse_container_runtime_choice("docker")) == std::vector<std::string>{"docker"});
  CHECK(runtime_candidates(*parse_container_runtime_choice("none")).empty());
  auto bad = parse_container_runtime_choice("lxc");
  REQUIRE(!bad);
  CHECK(bad.error().message == "--container-runtime: expected none, auto, podman or docker, got 'lxc'");
}

TEST_CASE("ldd's listing gives the loader and the libraries, and a missing library is an error quoting it") {
  const auto listing = parse_ldd_output(
      "\tlinux-vdso.so.1 (0x00007ffd)\n"
      "\tlibcaf_core.so.0.17.6 => /lib/x86_64-linux-gnu/libcaf_core.so.0.17.6 (0x00007f1)\n"
      "\tlibnccl.so.2 => /usr/local/cuda/lib/libnccl.so.2 (0x00007f2)\n"
      "\t/lib64/ld-linux-x86-64.so.2 (0x00007f3)\n");
  REQUIRE(listing);
  CHECK(listing->loader == "/lib64/ld-linux-x86-64.so.2");
  CHECK(listing->libraries == std::vector<std::filesystem::path>{"/lib/x86_64-linux-gnu/libcaf_core.so.0.17.6",
                                                                 "/usr/local/cuda/lib/libnccl.so.2"});
  auto missing = parse_ldd_output("\tlibfoo.so.1 => not found\n\t/lib64/ld-linux-x86-64.so.2 (0x1)\n");
  REQUIRE(!missing);
  CHECK(missing.error().message == "a library the program needs is missing: libfoo.so.1 => not found");
  auto static_program = parse_ldd_output("\tstatically linked\n");
  REQUIRE(static_program);
  CHECK(static_program->loader.empty());
}

TEST_CASE("The worker runs through the host's loader with the host's library folders, shown under /run/volador/host") {
  const HostLibraries libraries{"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                                {"/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib"}};
  const auto mounts = host_library_mounts(libraries);
  REQUIRE(mounts.size() == 2);
  CHECK(mounts[0] == SandboxMount{"/usr/lib/x86_64-linux-gnu", "/run/volador/host/usr/lib/x86_64-linux-gnu", true});
  CHECK(host_loader_command(libraries, "hook; ", "/opt/volador/bin/volador-worker") ==
        std::vector<std::string>{"/bin/sh", "-c", "hook; exec \"$0\" --library-path \"$1\" \"$2\"",
                                 "/run/volador/host/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                                 "/run/volador/host/usr/lib/x86_64-linux-gnu:/run/volador/host/usr/local/cuda/lib",
                                 "/opt/volador/bin/volador-worker"});
}

TEST_CASE("The runtime's own options come before run, and ulimits and a private /tmp follow it") {
  auto run = podman_run();
  run.runtime_options = {"--runtime", "runc"};
  run.ulimits = {"nofile=20000:20000", "nproc=32768:32768"};
  const auto args = image_command(example(), run, {"/bin/true"});
  CHECK(find_sequence(args, {"podman", "--runtime", "runc", "run"}) == 0);
  CHECK(find_sequence(args, {"--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"}) != std::string::npos);
  CHECK(find_sequence(args, {"--tmpfs", "/tmp"}) != std::string::npos);
}

TEST_CASE("podman runs runc only on a hybrid cgroup host that has runc") {
  CHECK(podman_runtime_options(true, true) == std::vector<std::string>{"--runtime", "runc"});
  CHECK(podman_runtime_options(true, false).empty());  // podman's own choice, which then says why it fails
  CHECK(podman_runtime_options(false, true).empty());
}

TEST_CASE("podman runs images only where the init its --init starts is installed or configured") {
  CHECK(podman_init_available(true, {}).has_value());
  CHECK(podman_init_available(false, {"[engine]\n  init_path = \"/usr/bin/tini\"\n"}).has_value());
  const auto missing = podman_init_available(false, {"", "[engine]\n# init_path = \"/usr/bin/tini\"\ncgroup_manager = \"cgroupfs\"\n"});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == volador::ErrorCode::unavailable);
  CHECK(missing.error().message.find("/usr/libexec/podman/catatonit is missing") != std::string::npos);
  CHECK(missing.error().message.find("apt-get install catatonit") != std::string::npos);
}

TEST_CASE("A runtime is probed by its version, which takes no storage lock: podman's client, docker's daemon") {
  CHECK(runtime_probe_command("podman") == std::vector<std::string>{"podman", "version", "--format", "{{.Client.Version}}"});
  CHECK(runtime_probe_command("docker") == std::vector<std::string>{"docker", "version", "--format", "{{.Server.Version}}"});
}

TEST_CASE("A host's cgroups are hybrid where mountinfo has both v1 hierarchies and a cgroup2 one") {
  constexpr const char* kV1 = "32 31 0:29 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";
  constexpr const char* kV2 = "40 31 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  constexpr const char* kOther = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n";
  CHECK(hybrid_cgroups(std::string(kOther) + kV1 + kV2));
  CHECK_FALSE(hybrid_cgroups(std::string(kOther) + kV1));
  CHECK_FALSE(hybrid_cgroups(std::string(kOther) + kV2));
}

TEST_CASE("A container keeps the agent's open-file and process limits, processes capped at pid_max") {
  CHECK(container_ulimits({1024, 20000}, {96364, 96364}, 32768) ==
        std::vector<std::string>{"nofile=1024:20000", "nproc=32768:32768"});
  CHECK(container_ulimits({1024, 4096}, {100, 200}, 32768) == std::vector<std::string>{"nofile=1024:4096", "nproc=100:200"});
}
