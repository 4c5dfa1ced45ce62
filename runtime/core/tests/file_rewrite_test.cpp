#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/core/file_rewrite.hpp"
#include "runtime/core/tests/test_folder.hpp"

namespace fs = std::filesystem;

namespace {

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ino_t inode_of(const fs::path& file) {
  struct stat info {};
  REQUIRE(::stat(file.c_str(), &info) == 0);
  return info.st_ino;
}

}  // namespace

TEST_CASE("A rewritten file holds the new text alone, in the same file, longer, shorter or as long as before") {
  volador::testing::TestFolder folder("file-rewrite");
  const auto file = folder.path / "trial.json";
  REQUIRE(volador::rewrite_file(file, "{\"trial\": 1, \"a longer first text\": true}\n"));
  const auto inode = inode_of(file);
  REQUIRE(volador::rewrite_file(file, "{\"trial\": 2}\n"));
  CHECK(text_of(file) == "{\"trial\": 2}\n");
  REQUIRE(volador::rewrite_file(file, "{\"trial\": 3, \"longer again\": [1, 2, 3]}\n"));
  CHECK(text_of(file) == "{\"trial\": 3, \"longer again\": [1, 2, 3]}\n");
  REQUIRE(volador::rewrite_file(file, "{\"trial\": 4, \"as long again\": [4, 567]}\n"));
  CHECK(text_of(file) == "{\"trial\": 4, \"as long again\": [4, 567]}\n");
  REQUIRE(volador::rewrite_file(file, ""));
  CHECK(fs::file_size(file) == 0);
  CHECK(inode_of(file) == inode);
}

TEST_CASE("A file that cannot be rewritten is an error naming it, and a symlink is never written through") {
  volador::testing::TestFolder folder("file-rewrite");
  const auto missing = folder.path / "no-such-folder" / "data.json";
  const auto written = volador::rewrite_file(missing, "{}\n");
  REQUIRE_FALSE(written.has_value());
  CHECK(written.error().code == volador::ErrorCode::io);
  CHECK(written.error().message == "cannot write " + missing.string() + ": No such file or directory");

  const auto target = folder.path / "elsewhere.txt";
  std::ofstream(target) << "not the trial's\n";
  fs::create_symlink(target, folder.path / "hparams.json");
  CHECK_FALSE(volador::rewrite_file(folder.path / "hparams.json", "{}\n").has_value());
  CHECK(text_of(target) == "not the trial's\n");
}
