#pragma once
// A folder of its own for one test case of core_tests: made empty under the
// system's temporary folder, removed with everything in it at the end.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace volador::testing {

struct TestFolder {
  // /tmp/volador-NAME-test-PID
  explicit TestFolder(std::string_view name)
      : path(std::filesystem::temp_directory_path() /
             ("volador-" + std::string(name) + "-test-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TestFolder() { std::filesystem::remove_all(path); }
  TestFolder(const TestFolder&) = delete;
  TestFolder& operator=(const TestFolder&) = delete;

  std::filesystem::path path;
};

}  // namespace volador::testing
