#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "runtime/config/config_parser.hpp"

using namespace volador::config;

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(VOLADOR_SOURCE_DIR) + "/runtime/config/tests/fixtures/" + name);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

TEST_CASE("manual examples", "[config]") {
  auto outcome = parse_experiment_config(read_fixture("mnist_pytorch_const.yaml"), "mnist.yaml");
  if (auto* errors = std::get_if<std::vector<ConfigError>>(&outcome)) FAIL(format_errors(*errors));
  outcome = parse_experiment_config(read_fixture("imagenet_const.yaml"), "imagenet.yaml");
  REQUIRE(std::holds_alternative<std::vector<ConfigError>>(outcome));
  WARN(format_errors(std::get<std::vector<ConfigError>>(outcome)));
}
