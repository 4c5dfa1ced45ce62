#include <catch2/catch.hpp>

#include <fcntl.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/core/unique_fd.hpp"
#include "storage/checkpoints/fsync_pool.hpp"
#include "storage/checkpoints/tests/test_support.hpp"

using namespace volador;
using namespace volador::checkpoints;
using namespace volador::checkpoints::testing;

namespace {

// `count` written files under `dir`, open for writing, and their paths.
struct OpenFiles {
  std::vector<fs::path> paths;
  std::vector<UniqueFd> fds;

  OpenFiles(const fs::path& dir, int count) {
    for (int i = 0; i < count; ++i) {
      paths.push_back(dir / ("f" + std::to_string(i)));
      write_file(paths.back(), "content " + std::to_string(i));
      fds.emplace_back(::open(paths.back().c_str(), O_WRONLY | O_CLOEXEC));
      REQUIRE(fds.back());
    }
  }

  std::vector<FsyncPool::Target> targets() const {
    std::vector<FsyncPool::Target> all;
    for (std::size_t i = 0; i < fds.size(); ++i) all.push_back({fds[i].get(), &paths[i]});
    return all;
  }
};

}  // namespace

TEST_CASE("fsync_all makes every target durable, with more targets than threads and with none") {
  TempDir temp;
  OpenFiles files(temp.path, 20);
  for (std::size_t helpers : {0U, 1U, 4U}) {
    FsyncPool pool(helpers);
    CHECK(pool.fsync_all(files.targets()).has_value());
    CHECK(pool.fsync_all({}).has_value());
  }
  CHECK(FsyncPool::shared().fsync_all(files.targets()).has_value());
}

TEST_CASE("fsync_all reports the first failing target in order, after every target was tried") {
  TempDir temp;
  OpenFiles files(temp.path, 6);
  const fs::path first = temp.path / "first-bad", second = temp.path / "second-bad";
  auto targets = files.targets();
  targets.insert(targets.begin() + 2, {-1, &first});
  targets.push_back({-1, &second});
  FsyncPool pool(3);
  auto synced = pool.fsync_all(targets);
  REQUIRE_FALSE(synced.has_value());
  CHECK(synced.error().code == ErrorCode::io);
  CHECK(synced.error().message.find("cannot fsync " + first.string()) == 0);
}

TEST_CASE("fsync_all serves many callers at once") {
  TempDir temp;
  OpenFiles files(temp.path, 12);
  FsyncPool pool(2);
  std::vector<int> ok(6, 0);
  {
    std::vector<std::jthread> callers;
    for (std::size_t c = 0; c < ok.size(); ++c)
      callers.emplace_back([&, c] {
        for (int round = 0; round < 5; ++round) ok[c] += pool.fsync_all(files.targets()).has_value() ? 1 : 0;
      });
  }
  CHECK(ok == std::vector<int>(6, 5));
}
