#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "runtime/core/folder_names.hpp"
#include "runtime/core/tests/test_folder.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::ranges::sort(names);
  return names;
}

}  // namespace

TEST_CASE("A folder's names are listed without . and .., files and folders alike") {
  volador::testing::TestFolder folder("folder-names");
  CHECK(volador::folder_names(folder.path, 10) == std::vector<std::string>{});
  std::ofstream(folder.path / "a.json") << "{}";
  fs::create_directory(folder.path / "current");
  CHECK(sorted(*volador::folder_names(folder.path, 10)) == std::vector<std::string>{"a.json", "current"});
}

TEST_CASE("Listing stops once more names than asked for were seen, however many the folder holds") {
  volador::testing::TestFolder folder("folder-names");
  for (int i = 0; i < 500; ++i) std::ofstream(folder.path / ("a-name-long-enough-to-fill-the-buffer-" + std::to_string(i)));
  CHECK(volador::folder_names(folder.path, 0)->size() == 1);
  CHECK(volador::folder_names(folder.path, 3)->size() == 4);
  CHECK(volador::folder_names(folder.path, 1000)->size() == 500);  // more than one read's worth
}

TEST_CASE("A file, a symlink to a folder and a missing path are no folders to list") {
  volador::testing::TestFolder folder("folder-names");
  fs::create_directory(folder.path / "real");
  std::ofstream(folder.path / "file") << "x";
  fs::create_directory_symlink(folder.path / "real", folder.path / "link");
  CHECK(volador::folder_names(folder.path / "real", 0).has_value());
  CHECK_FALSE(volador::folder_names(folder.path / "file", 0).has_value());
  CHECK_FALSE(volador::folder_names(folder.path / "link", 0).has_value());
  CHECK_FALSE(volador::folder_names(folder.path / "missing", 0).has_value());
}
