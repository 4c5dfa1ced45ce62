#pragma once
// Helpers shared by the checkpoint tests: a private temp folder, small file
// I/O, and a store with a fresh uuid.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "storage/checkpoints/shared_fs_store.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::checkpoints::testing {

namespace fs = std::filesystem;

// A fresh folder under the system temp folder, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("volador-ckpt-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter++) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Names directly inside `dir`, sorted.
inline std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  return names;
}

inline std::string fresh_uuid() {
  auto uuid = new_uuid();
  REQUIRE(uuid.has_value());
  return *uuid;
}

inline std::unique_ptr<SharedFsStore> open_store(const fs::path& root) {
  auto store = SharedFsStore::open(root);
  REQUIRE(store.has_value());
  return std::move(*store);
}

// Begins `uuid`, writes `files` (relative path -> content) and commits.
inline CheckpointManifest commit_files(CheckpointStore& store, const std::string& uuid,
                                       const std::map<std::string, std::string>& files) {
  auto pending = store.begin(uuid);
  REQUIRE(pending.has_value());
  for (const auto& [relative, content] : files) write_file(pending->dir / relative, content);
  auto manifest = store.commit(*pending);
  REQUIRE(manifest.has_value());
  return *manifest;
}

}  // namespace volador::checkpoints::testing
