#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "runtime/core/file_read.hpp"
#include "runtime/core/tests/test_folder.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

}  // namespace

TEST_CASE("A file is read whole, empty or larger than a read, NUL bytes included") {
  volador::testing::TestFolder folder("file-read");
  const auto file = folder.path / "trial.json";
  write(file, "");
  CHECK(volador::read_file(file).value().empty());
  std::string big(300'000, 'x');
  big[1000] = '\0';
  big.back() = '\n';
  write(file, big);
  CHECK(volador::read_file(file).value() == big);
}

TEST_CASE("Reading a missing file is not_found, reading a folder is io, both naming it") {
  volador::testing::TestFolder folder("file-read");
  auto missing = volador::read_file(folder.path / "absent.json");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == volador::ErrorCode::not_found);
  CHECK(missing.error().message.find("absent.json") != std::string::npos);
  auto folder_read = volador::read_file(folder.path);
  REQUIRE_FALSE(folder_read);
  CHECK(folder_read.error().code == volador::ErrorCode::io);
  CHECK(folder_read.error().message.find(folder.path.string()) != std::string::npos);
}
