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

TEST_CASE("An image is admitted where any agent of the pool has a container runtime, the scheduler placing it there") {
  CHECK(check_image_runs("gpu", {agent("docker"), agent("podman")}, {"image"}));
  CHECK(check_image_runs("gpu", {agent("", "a1"), agent("podman", "a2"), agent("", "a3")}, {"image"}));
  CHECK(check_image_runs("gpu", {agent("")}, {}));  // no image: nothing to check
}

TEST_CASE("A trial needs an agent that runs images when its environment sets any image field") {
  config::Environment environment;
  CHECK_FALSE(needs_images(environment));
  environment.registry_auth = config::RegistryAuth{"u", "p", "registry.example.com"};
  CHECK(needs_images(environment));
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
