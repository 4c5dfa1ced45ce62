#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>

#include "http/api_router.hpp"
#include "http/routes.hpp"

using namespace volador::http;

namespace {

// "/experiments/{uuid}" -> "/experiments/{id}": only the shape of a path matters.
std::string shape(const std::string& path) { return std::regex_replace(path, std::regex(R"(\{[a-z_]+\})"), "{id}"); }

}  // namespace

TEST_CASE("Every route the server registers is documented in openapi.yaml and nothing else is") {
  httplib::Server server;
  ApiRouter router(server, std::make_shared<ApiContext>());
  add_auth_routes(router);
  add_experiment_routes(router);
  add_trial_routes(router);
  add_cluster_routes(router);
  add_config_routes(router);
  add_lifecycle_routes(router);
  std::set<std::pair<std::string, std::string>> served;
  for (const auto& [method, path] : router.routes()) served.emplace(method, shape(path));

  const auto spec = YAML::LoadFile(std::string(VOLADOR_SOURCE_DIR) + "/http/openapi.yaml");
  const auto base = spec["servers"][0]["url"].as<std::string>();
  std::set<std::pair<std::string, std::string>> documented;
  for (const auto& path : spec["paths"])
    for (const auto& operation : path.second) {
      auto method = operation.first.as<std::string>();
      std::transform(method.begin(), method.end(), method.begin(), ::toupper);
      documented.emplace(method, shape(base + path.first.as<std::string>()));
    }
  REQUIRE(served.size() == router.routes().size());  // no route registered twice
  CHECK(served == documented);
}
