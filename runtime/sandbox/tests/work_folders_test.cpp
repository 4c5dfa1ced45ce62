#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

#include "runtime/sandbox/work_folders.hpp"

using namespace volador::sandbox;
namespace fs = std::filesystem;

namespace {

struct WorkDir {
  fs::path dir = fs::temp_directory_path() / ("volador-work-folders-test-" + std::to_string(getpid()));
  WorkDir() { fs::create_directories(dir); }
  ~WorkDir() { fs::remove_all(dir); }
  [[nodiscard]] fs::path rank(const std::string& name) const {
    fs::create_directories(dir / name);
    std::ofstream(dir / name / "model_def.py") << "x = 1\n";
    return dir / name;
  }
};

}  // namespace

TEST_CASE("A rank's folder goes when it ends cleanly") {
  WorkDir work;
  WorkFolders folders({std::chrono::minutes(10), 0});
  const auto folder = work.rank("trial-1-run-1-rank-0");
  folders.rank_ended(folder, false, 1000);
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("A failed rank's folder is kept for keep_failed, then reaped with its worker's home") {
  WorkDir work;
  WorkFolders folders({std::chrono::minutes(10), 0});
  const auto folder = work.rank("workers/worker-1/trial-2-run-1-rank-0");
  folders.rank_ended(folder, true, 1000);
  folders.reap(1000 + 600'000 - 1);
  CHECK(fs::exists(folder));
  folders.reap(1000 + 600'000);
  CHECK_FALSE(fs::exists(folder.parent_path()));
}

TEST_CASE("keep_failed 0 reclaims a failed rank's folder at once") {
  WorkDir work;
  WorkFolders folders({std::chrono::milliseconds(0), 0});
  const auto folder = work.rank("trial-3-run-1-rank-0");
  folders.rank_ended(folder, true, 1000);
  CHECK_FALSE(fs::exists(folder));
}

TEST_CASE("An earlier agent's rank folders older than keep_failed go at start, recent ones and other files stay") {
  WorkDir work;
  const auto old_rank = work.rank("workers/worker-1/trial-4-run-1-rank-0");
  const auto recent_rank = work.rank("workers/worker-2/trial-5-run-1-rank-0");
  const auto tls = work.rank("tls");
  fs::last_write_time(old_rank, fs::file_time_type::clock::now() - std::chrono::hours(2));
  fs::last_write_time(tls, fs::file_time_type::clock::now() - std::chrono::hours(2));
  WorkFolders({std::chrono::hours(1), 0}).reap_left_over(work.dir);
  CHECK_FALSE(fs::exists(old_rank.parent_path()));  // its worker's home, left empty
  CHECK(fs::exists(recent_rank));
  CHECK(fs::exists(tls));
}

TEST_CASE("A work disk below the minimum refuses trials, saying how much is free and needed") {
  WorkDir work;
  const auto free = free_disk_bytes(work.dir);
  REQUIRE(free);
  CHECK_FALSE(WorkFolders({std::chrono::hours(1), 0}).refusal(work.dir));
  const auto refusal = WorkFolders({std::chrono::hours(1), *free + (1ull << 40)}).refusal(work.dir);
  REQUIRE(refusal);
  CHECK(refusal->find(work.dir.string() + " has ") != std::string::npos);
  CHECK(refusal->find("(--min-free-disk) an agent needs to start a trial") != std::string::npos);
}
