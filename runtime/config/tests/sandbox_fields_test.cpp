// bind_mounts: where a mount may appear in a rank's sandbox, and its propagation.
#include "runtime/config/tests/config_test_support.hpp"

namespace volador::config::testing {
namespace {

TEST_CASE("bind_mounts are read as the manual writes them, read_only false unless set", "[config][sandbox]") {
  const auto mounts = parse_ok(with("bind_mounts:\n"
                                    "  - host_path: /data\n"
                                    "    container_path: /data\n"
                                    "  - host_path: /mnt/read-only-data\n"
                                    "    container_path: /mnt/read-only-data\n"
                                    "    read_only: true\n"
                                    "    propagation: rslave\n"))
                          .bind_mounts;
  REQUIRE(mounts.size() == 2);
  CHECK(mounts[0].host_path == "/data");
  CHECK(mounts[0].container_path == "/data");
  CHECK_FALSE(mounts[0].read_only);
  CHECK(mounts[1].container_path == "/mnt/read-only-data");
  CHECK(mounts[1].read_only);
}

TEST_CASE("A bind mount's container path that is relative or would shadow the sandbox's folders is refused at its line",
          "[config][sandbox]") {
  const auto mount = [](const std::string& container_path) {
    return with("bind_mounts: [{host_path: /data, container_path: " + container_path + "}]\n");
  };
  check_bad_cases({
      {mount("data"),
       "distributed.yaml:10:50: bind_mounts[0].container_path: must be an absolute path (such as /data), got 'data'"},
      {mount("/data/../usr"), "distributed.yaml:10:50: bind_mounts[0].container_path: must be a normal path: write '/usr'"},
      {mount("/usr/lib"),
       "distributed.yaml:10:50: bind_mounts[0].container_path: would shadow the system folder /usr the sandbox needs"},
      {mount("/etc"),
       "distributed.yaml:10:50: bind_mounts[0].container_path: would shadow the system folder /etc the sandbox needs"},
      {mount("/"), "distributed.yaml:10:50: bind_mounts[0].container_path: cannot be '/', the sandbox's root"},
      {mount("/run/volador/work"),
       "distributed.yaml:10:50: bind_mounts[0].container_path: would shadow the trial's project folder (under "
       "/run/volador)"},
      {mount("/dev/shm"),
       "distributed.yaml:10:50: bind_mounts[0].container_path: would shadow /dev, which the sandbox makes itself"},
  });
}

TEST_CASE("A bind mount's propagation other than rslave is refused: the sandbox's mounts are the host's slaves",
          "[config][sandbox]") {
  const auto refused = [](const std::string& propagation) {
    return "distributed.yaml:10:70: bind_mounts[0].propagation: only rslave is available, what the sandbox gives: "
           "mounts made later on the host under host_path appear inside, and none made inside leave it; remove the "
           "field or write rslave, got '" + propagation + "'";
  };
  check_bad_cases({
      {with("bind_mounts: [{host_path: /data, container_path: /data, propagation: rprivate}]\n"), refused("rprivate")},
      {with("bind_mounts: [{host_path: /data, container_path: /data, propagation: rshared}]\n"), refused("rshared")},
  });
}

}  // namespace
}  // namespace volador::config::testing
