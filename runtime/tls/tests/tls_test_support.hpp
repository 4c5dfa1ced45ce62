#pragma once
// Test support: a fresh folder per test, removed at the end, and file modes.

#include <sys/stat.h>

#include <filesystem>
#include <random>

namespace volador::tls::testing {

struct ScratchDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("volador-tls-test-" + std::to_string(std::random_device{}()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

inline unsigned mode_of(const std::filesystem::path& path) {
  struct stat info {};
  ::stat(path.c_str(), &info);
  return info.st_mode & 0777;
}

}  // namespace volador::tls::testing
