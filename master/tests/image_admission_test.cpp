#include <catch2/catch.hpp>

#include "master/image_admission.hpp"

using namespace volador;
using namespace volador::master;

namespace {

wire::AgentInfo agent(std::string runtime, std::string id = "a") {
  wire::AgentInfo info;
  info.agent_id = std::move(id);
  info.container_runtime = std::move(runtime);
  return info;
}

}  // namespace

TEST_CASE("The image fields an environment sets are named, image first") {
  config::Environment environment;
  CHECK(image_fields(environment).empty());
  environment.force_pull_image = true;
  environment.registry_auth = config::RegistryAuth{"u", "p", "registry.example.com"};
  CHECK(image_fields(environment) == std::vector<std::string>{"force_pull_image", "registry_auth"});
  environment.image = "debian:12";
  CHECK(image_fields(environment).front() == "image");
}

TEST_CASE("An image is admitted where every agent of the pool has a container runtime") {
  CHECK(check_image_runs("gpu", {agent("docker"), agent("podman")}, {"image"}));
  CHECK(check_image_runs("gpu", {agent("")}, {}));  // no image: nothing to check
}

TEST_CASE("An image is refused in a pool where only some agents can run it, naming those that cannot") {
  auto refused = check_image_runs("gpu", {agent("", "a1"), agent("podman", "a2"), agent("", "a3")}, {"image"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "environment.image: agent(s) a1, a3 of pool gpu cannot run images, and the pool's trials may go to any of its "
        "agents; install podman there, or run the experiment in a pool whose agents all can (resources.resource_pool)");
}

TEST_CASE("An image no agent of the pool can run is refused naming the field and the pool") {
  auto refused = check_image_runs("gpu", {agent(""), agent("")}, {"image", "force_pull_image"});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().message ==
        "environment.image: no agent in pool gpu can run images; remove environment.image or install podman");
  auto auth = check_image_runs("default", {}, {"registry_auth"});
  REQUIRE_FALSE(auth);
  CHECK(auth.error().message ==
        "environment.registry_auth: no agent in pool default can run images; remove environment.registry_auth or "
        "install podman");
}
