#include <catch2/catch.hpp>

#include "runtime/sandbox/container_paths.hpp"
#include "runtime/sandbox/sandbox_spec.hpp"

using volador::sandbox::container_path_refusal;
using volador::sandbox::paths_overlap;

namespace {

std::string refusal(std::string_view path) { return container_path_refusal(path).value_or("accepted"); }

}  // namespace

TEST_CASE("Data folders anywhere outside the sandbox's own folders take a bind mount") {
  for (auto path : {"/data", "/mnt/read-only-data", "/tmp/data", "/srv/x/y", "/home/user/datasets", "/run/data"})
    CHECK(refusal(path) == "accepted");
}

TEST_CASE("A relative or unnormal container path is refused with the path to write instead") {
  CHECK(refusal("data") == "must be an absolute path (such as /data), got 'data'");
  CHECK(refusal("./data") == "must be an absolute path (such as /data), got './data'");
  CHECK(refusal("") == "must be an absolute path (such as /data), got ''");
  CHECK(refusal("/data/../etc") == "must be a normal path: write '/etc'");
  CHECK(refusal("/data/./x") == "must be a normal path: write '/data/x'");
  CHECK(refusal("/data/") == "must not end with '/': write '/data'");
}

TEST_CASE("A container path on, above or inside a folder the sandbox needs is refused naming it") {
  CHECK(refusal("/") == "cannot be '/', the sandbox's root");
  CHECK(refusal("/tmp") == "cannot be /tmp, the sandbox's private temporary folder (a folder under it can)");
  CHECK(refusal("/usr") == "would shadow the system folder /usr the sandbox needs");
  CHECK(refusal("/usr/lib/python3") == "would shadow the system folder /usr the sandbox needs");
  CHECK(refusal("/etc/hosts") == "would shadow the system folder /etc the sandbox needs");
  CHECK(refusal("/lib64") == "would shadow the system folder /lib64 the sandbox needs");
  CHECK(refusal("/proc") == "would shadow /proc, which the sandbox makes itself");
  CHECK(refusal("/dev/shm") == "would shadow /dev, which the sandbox makes itself");
  CHECK(refusal("/run") == "would shadow the system folder /run/systemd/resolve the sandbox needs");
  CHECK(refusal("/run/volador") == "would shadow the trial's project folder (under /run/volador)");
  CHECK(refusal("/run/volador/work") == "would shadow the trial's project folder (under /run/volador)");
}

TEST_CASE("Paths overlap when one is the other or lies inside it, component by component") {
  CHECK(paths_overlap("/usr", "/usr"));
  CHECK(paths_overlap("/usr", "/usr/lib"));
  CHECK(paths_overlap("/usr/lib", "/usr"));
  CHECK(paths_overlap("/", "/etc"));
  CHECK_FALSE(paths_overlap("/usr", "/usrdata"));
  CHECK_FALSE(paths_overlap("/data/a", "/data/b"));
}
