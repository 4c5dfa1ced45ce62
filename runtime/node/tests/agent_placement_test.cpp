#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "runtime/node/agent_placement.hpp"

namespace volador::node {
namespace {

TEST_CASE("Agent labels are key=value flags and a malformed or repeated one is refused naming it", "[node][pools]") {
  auto labels = parse_agent_labels({"rack=b2", "gpu.memory=80GiB", "note="});
  REQUIRE(labels);
  CHECK(*labels == std::map<std::string, std::string>{{"gpu.memory", "80GiB"}, {"note", ""}, {"rack", "b2"}});
  CHECK(parse_agent_labels({})->empty());
  const std::vector<std::pair<std::string, std::string>> bad{
      {"rack", "--label 'rack': expected key=value with a key of 1 to 63 of a-z A-Z 0-9 _ . - /"},
      {"=b2", "--label '=b2': expected key=value with a key of 1 to 63 of a-z A-Z 0-9 _ . - /"},
      {"ra ck=b2", "--label 'ra ck=b2': expected key=value with a key of 1 to 63 of a-z A-Z 0-9 _ . - /"},
      {"rack=b\n2", "--label 'rack=b\n2': the value must be at most 255 printable characters"},
  };
  for (const auto& [flag, message] : bad) {
    auto refused = parse_agent_labels({flag});
    REQUIRE_FALSE(refused);
    CHECK(refused.error().message == message);
  }
  auto twice = parse_agent_labels({"rack=a", "rack=b"});
  REQUIRE_FALSE(twice);
  CHECK(twice.error().message == "--label 'rack=b': label 'rack' is given twice");
}

TEST_CASE("A master reads its cluster config file, or has one default pool without one", "[node][pools]") {
  CHECK(read_cluster_config("")->pools.size() == 1);
  const auto dir = std::filesystem::temp_directory_path() / "volador-cluster-config-test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "cluster.yaml").string();
  std::ofstream(path) << "resource_pools:\n  - name: gpus\n  - name: gpus\n";
  auto refused = read_cluster_config(path);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == path + ":3:11: resource_pools[1].name: a second pool named \"gpus\"; pool names are unique");
  std::ofstream(path) << "resource_pools:\n  - name: gpus\n  - name: cpus\n";
  auto read = read_cluster_config(path);
  REQUIRE(read);
  CHECK(read->pools.size() == 2);
  CHECK(read_cluster_config((dir / "absent.yaml").string()).error().code == ErrorCode::not_found);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace volador::node
