#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/cli/config_file.hpp"

using volador::cli::read_config_file;
namespace fs = std::filesystem;

TEST_CASE("A config file is read whole and a folder or a missing file is refused with the path") {
  const auto dir = fs::temp_directory_path() / ("volador-config-file-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::ofstream(dir / "distributed.yaml") << "name: x\n";
  CHECK(read_config_file((dir / "distributed.yaml").string()).value() == "name: x\n");

  auto folder = read_config_file(dir.string());
  REQUIRE_FALSE(folder.has_value());
  CHECK_THAT(folder.error().message, Catch::Contains("is a folder") && Catch::Contains("distributed.yaml"));

  auto missing = read_config_file((dir / "absent.yaml").string());
  REQUIRE_FALSE(missing.has_value());
  CHECK_THAT(missing.error().message, Catch::Contains("cannot read") && Catch::Contains("absent.yaml"));
  fs::remove_all(dir);
}
