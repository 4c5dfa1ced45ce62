#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "runtime/worker/command_checkpoint.hpp"
#include "storage/checkpoints/tests/test_support.hpp"

using namespace volador;
using namespace volador::checkpoints::testing;
using volador::worker::CommandCheckpoints;

namespace {

struct Folders {
  TempDir temp;
  fs::path work = temp.path / "work";
  std::unique_ptr<checkpoints::SharedFsStore> store = open_store(temp.path / "storage");
  checkpoints::PendingCheckpoint staging = begin_staging();

  checkpoints::PendingCheckpoint begin_staging() const {
    auto pending = store->begin(fresh_uuid());
    REQUIRE(pending.has_value());
    return *pending;
  }
  CommandCheckpoints prepare(const std::string& restore_path = "") const {
    auto folders = CommandCheckpoints::prepare(work, restore_path);
    REQUIRE(folders.has_value());
    return std::move(*folders);
  }
};

}  // namespace

TEST_CASE_METHOD(Folders, "A fresh command gets an empty checkpoint folder in its working folder and no latest one") {
  write_file(work / ".volador-checkpoints/current/stale.bin", "from an earlier run in this folder");
  const auto folders = prepare();
  const auto env = folders.environment();
  REQUIRE(env.size() == 1);
  const fs::path current = env.at("VOLADOR_CHECKPOINT_DIR");
  CHECK(current == work / ".volador-checkpoints/current");
  CHECK(fs::is_directory(current));
  CHECK(fs::is_empty(current));
  // Nothing else is made: `snapshots` comes with volador.reporting.checkpoint()'s first call.
  CHECK(entries(work / ".volador-checkpoints") == std::vector<std::string>{"current"});
}

TEST_CASE_METHOD(Folders, "In a fresh working folder only the empty checkpoint folder and the one above it are made") {
  fs::create_directories(work);
  const auto folders = prepare();
  const fs::path current = folders.environment().at("VOLADOR_CHECKPOINT_DIR");
  CHECK(fs::is_directory(current));
  CHECK(fs::is_empty(current));
  CHECK(entries(work / ".volador-checkpoints") == std::vector<std::string>{"current"});
}

TEST_CASE_METHOD(Folders, "A resumed command finds its latest checkpoint restored and verified") {
  const auto uuid = fresh_uuid();
  commit_files(*store, uuid, {{"model.bin", "weights"}, {"opt/state.json", "{}"}});
  const auto folders = prepare((store->root() / uuid).string());
  const fs::path latest = folders.environment().at("VOLADOR_LATEST_CHECKPOINT");
  CHECK(latest == work / ".volador-checkpoints/latest");
  CHECK(read_file(latest / "model.bin") == "weights");
  CHECK(read_file(latest / "opt/state.json") == "{}");

  write_file(store->root() / uuid / "model.bin", "changed");
  auto damaged = CommandCheckpoints::prepare(work, (store->root() / uuid).string());
  REQUIRE_FALSE(damaged.has_value());
  CHECK(damaged.error().code == ErrorCode::corruption);
  CHECK_THAT(damaged.error().message, Catch::StartsWith("cannot restore checkpoint " + (store->root() / uuid).string()));
}

TEST_CASE_METHOD(Folders, "The checkpoint folder is captured into a new staging folder, an empty one is not") {
  auto folders = prepare();
  const fs::path current = folders.environment().at("VOLADOR_CHECKPOINT_DIR");
  fs::create_directories(current / "empty-subfolder");
  auto nothing = folders.capture(staging.dir, "");
  REQUIRE(nothing.has_value());
  CHECK_FALSE(nothing->has_value());
  CHECK(entries(staging.dir).empty());

  write_file(current / "model/weights.bin", std::string(70'000, '\x01'));
  auto first = folders.capture(staging.dir, "");
  REQUIRE(first.has_value());
  REQUIRE(first->has_value());
  CHECK(read_file(staging.dir / **first / "model/weights.bin") == std::string(70'000, '\x01'));
  CHECK(fs::exists(current / "model/weights.bin"));  // the command's folder is left as it was
  auto second = folders.capture(staging.dir, "");
  REQUIRE(second.has_value());
  CHECK(**second != **first);

  auto uuid = fresh_uuid();
  auto pending = store->begin_from(uuid, staging, **first);
  REQUIRE(pending.has_value());
  CHECK(store->commit(*pending).has_value());
}

TEST_CASE_METHOD(Folders, "A snapshot is moved into the staging folder and other ranks drop theirs") {
  auto folders = prepare();
  const fs::path snapshots = work / ".volador-checkpoints/snapshots";
  write_file(snapshots / "snapshot-a/epoch.txt", "2");
  auto captured = folders.capture(staging.dir, "snapshot-a");
  REQUIRE(captured.has_value());
  REQUIRE(captured->has_value());
  CHECK(read_file(staging.dir / **captured / "epoch.txt") == "2");
  CHECK_FALSE(fs::exists(snapshots / "snapshot-a"));

  write_file(snapshots / "snapshot-b/epoch.txt", "3");
  folders.drop_snapshot("snapshot-b");
  CHECK(entries(snapshots).empty());

  auto missing = folders.capture(staging.dir, "snapshot-c");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == ErrorCode::invalid_argument);
}

TEST_CASE_METHOD(Folders, "A capture refuses what a checkpoint cannot hold, naming it") {
  auto folders = prepare();
  const fs::path current = folders.environment().at("VOLADOR_CHECKPOINT_DIR");
  write_file(current / "model.bin", "w");
  std::string expected;
  SECTION("a symlink") {
    fs::create_symlink("model.bin", current / "link.bin");
    expected = "'link.bin' in the checkpoint folder is a symlink or special file";
  }
  SECTION("a top-level manifest.json") {
    write_file(current / "manifest.json", "{}");
    expected = "top-level 'manifest.json'";
  }
  auto captured = folders.capture(staging.dir, "");
  REQUIRE_FALSE(captured.has_value());
  CHECK(captured.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(captured.error().message, Catch::Contains(expected));
  CHECK(entries(staging.dir).empty());
}

TEST_CASE_METHOD(Folders, "A capture makes the staging folder the trial only reserved") {
  auto reserved = store->reserve(fresh_uuid());
  REQUIRE(reserved.has_value());
  REQUIRE_FALSE(fs::exists(reserved->dir));
  auto folders = prepare();
  write_file(work / ".volador-checkpoints/current/model.bin", "weights");
  auto captured = folders.capture(reserved->dir, "");
  REQUIRE(captured.has_value());
  REQUIRE(captured->has_value());
  CHECK(read_file(reserved->dir / **captured / "model.bin") == "weights");
  CHECK(store->begin_from(fresh_uuid(), *reserved, **captured).has_value());
}

TEST_CASE_METHOD(Folders, "An empty checkpoint folder left by the last run in a reused working folder serves as it is") {
  fs::create_directories(work / ".volador-checkpoints/current");
  struct stat before {};
  REQUIRE(::stat((work / ".volador-checkpoints/current").c_str(), &before) == 0);
  prepare();
  struct stat after {};
  REQUIRE(::stat((work / ".volador-checkpoints/current").c_str(), &after) == 0);
  CHECK(after.st_ino == before.st_ino);  // not removed and made again

  // Anything more in it, or a symlink in its place, and it is made anew, empty.
  write_file(work / ".volador-checkpoints/snapshots/one/weights", "w");
  const auto current = fs::path(prepare().environment().at("VOLADOR_CHECKPOINT_DIR"));
  CHECK(fs::is_empty(current));
  CHECK_FALSE(fs::exists(work / ".volador-checkpoints/snapshots"));
  fs::remove(current);
  fs::create_directory_symlink(temp.path / "storage", current);
  prepare();
  CHECK_FALSE(fs::is_symlink(current));
  CHECK(fs::is_empty(current));
  CHECK(fs::exists(temp.path / "storage"));
}
