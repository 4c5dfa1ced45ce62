#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "storage/checkpoints/checkpoint_store.hpp"
#include "storage/checkpoints/manifest.hpp"
#include "storage/checkpoints/tests/test_support.hpp"

using namespace volador;
using namespace volador::checkpoints;
using namespace volador::checkpoints::testing;

namespace {

const std::map<std::string, std::string> kFiles{
    {"state.json", R"({"batches": 200})"},
    {"model/weights.bin", std::string(100'000, '\x7f')},
    {"model/optimizer/adam.bin", "abc"},
    {"empty.txt", ""},
};

// SHA-256 of "abc" (FIPS 180-2, appendix B.1).
constexpr const char* kAbcSha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

struct StoreFixture {
  TempDir temp;
  std::unique_ptr<SharedFsStore> store = open_store(temp.path / "checkpoints");
  std::string uuid = fresh_uuid();

  fs::path committed() const { return store->root() / uuid; }
  void commit_example() { commit_files(*store, uuid, kFiles); }
};

}  // namespace

TEST_CASE_METHOD(StoreFixture, "commit makes a checksummed copy of every file visible under its uuid") {
  auto pending = store->begin(uuid);
  REQUIRE(pending.has_value());
  CHECK(pending->uuid == uuid);
  CHECK(pending->dir.parent_path() == store->root());
  for (const auto& [relative, content] : kFiles) write_file(pending->dir / relative, content);

  auto manifest = store->commit(*pending);
  REQUIRE(manifest.has_value());
  CHECK(manifest->uuid == uuid);
  CHECK(manifest->format_version == kManifestFormatVersion);
  CHECK(manifest->created_unix_ms > 1'600'000'000'000);
  CHECK(manifest->total_bytes == 100'000 + 3 + 16);
  std::vector<std::string> paths;
  for (const ManifestFile& file : manifest->files) paths.push_back(file.path);
  CHECK(paths == std::vector<std::string>{"empty.txt", "model/optimizer/adam.bin", "model/weights.bin", "state.json"});
  CHECK(manifest->files[1].size == 3);
  CHECK(manifest->files[1].sha256 == kAbcSha256);

  auto path = store->path(uuid);
  REQUIRE(path.has_value());
  CHECK(*path == committed());
  for (const auto& [relative, content] : kFiles) CHECK(read_file(*path / relative) == content);
  auto stored = parse_manifest(read_file(*path / kManifestFileName), "manifest.json");
  REQUIRE(stored.has_value());
  CHECK(stored->files.size() == 4);
  CHECK(store->verify(uuid).has_value());
  CHECK(entries(store->root()) == std::vector<std::string>{uuid});
}

TEST_CASE_METHOD(StoreFixture, "a checkpoint of more files than one fsync group at a time commits whole") {
  std::map<std::string, std::string> many;
  for (int i = 0; i < 150; ++i) many["part/" + std::to_string(i) + ".bin"] = std::to_string(i * i);
  auto manifest = commit_files(*store, uuid, many);
  CHECK(manifest.files.size() == 150);
  CHECK(store->verify(uuid).has_value());
  CHECK(entries(store->root()) == std::vector<std::string>{uuid});
}

TEST_CASE_METHOD(StoreFixture, "an uncommitted checkpoint is invisible and its uuid is taken") {
  auto pending = store->begin(uuid);
  REQUIRE(pending.has_value());
  write_file(pending->dir / "weights.bin", "partial");

  CHECK(store->path(uuid).error().code == ErrorCode::not_found);
  CHECK(store->verify(uuid).error().code == ErrorCode::not_found);
  TempDir out;
  CHECK(store->download(uuid, out.path / "copy").error().code == ErrorCode::not_found);
  CHECK_FALSE(fs::exists(committed()));
  CHECK(store->begin(uuid).error().code == ErrorCode::already_exists);

  REQUIRE(store->commit(*pending).has_value());
  CHECK(store->begin(uuid).error().code == ErrorCode::already_exists);
}

TEST_CASE_METHOD(StoreFixture, "abort removes the private folder and frees the uuid") {
  auto pending = store->begin(uuid);
  REQUIRE(pending.has_value());
  write_file(pending->dir / "a/b.bin", "x");
  REQUIRE(store->abort(*pending).has_value());
  CHECK(entries(store->root()).empty());
  CHECK(store->abort(*pending).has_value());
  CHECK(store->begin(uuid).has_value());
}

TEST_CASE_METHOD(StoreFixture, "reserve names the private folder without making it, and abort and a taken uuid act as with begin") {
  auto reserved = store->reserve(uuid);
  REQUIRE(reserved.has_value());
  CHECK(entries(store->root()).empty());
  CHECK(reserved->dir == store->begin(uuid).value().dir);  // the writer makes the same folder
  CHECK(store->reserve(uuid).error().code == ErrorCode::already_exists);
  REQUIRE(store->abort(*reserved).has_value());
  CHECK(entries(store->root()).empty());
  CHECK(store->abort(*reserved).has_value());  // nothing was ever made: ok too
  commit_example();
  CHECK(store->reserve(uuid).error().code == ErrorCode::already_exists);
}

TEST_CASE_METHOD(StoreFixture, "begin_from moves a staged folder in as a checkpoint that commits like any other") {
  auto staging = store->begin(fresh_uuid());
  REQUIRE(staging.has_value());
  write_file(staging->dir / "capture-1/model/weights.bin", "abc");
  write_file(staging->dir / "capture-2/other.bin", "x");
  auto pending = store->begin_from(uuid, *staging, "capture-1");
  REQUIRE(pending.has_value());
  CHECK_FALSE(fs::exists(staging->dir / "capture-1"));
  CHECK(fs::exists(staging->dir / "capture-2"));
  auto manifest = store->commit(*pending);
  REQUIRE(manifest.has_value());
  REQUIRE(manifest->files.size() == 1);
  CHECK(manifest->files[0].path == "model/weights.bin");
  CHECK(manifest->files[0].sha256 == kAbcSha256);
  CHECK(store->verify(uuid).has_value());
  CHECK(store->begin_from(uuid, *staging, "capture-2").error().code == ErrorCode::already_exists);
  const auto other = fresh_uuid();
  CHECK(store->begin_from(other, *staging, "capture-3").error().code == ErrorCode::not_found);
  for (const std::string bad : {"", "..", "capture-2/..", "/tmp"}) {
    CAPTURE(bad);
    CHECK(store->begin_from(other, *staging, bad).error().code == ErrorCode::invalid_argument);
  }
  TempDir elsewhere;
  const PendingCheckpoint foreign{.uuid = fresh_uuid(), .dir = elsewhere.path};
  CHECK(store->begin_from(other, foreign, "capture-2").error().code == ErrorCode::invalid_argument);
  REQUIRE(store->abort(*staging).has_value());
}

TEST_CASE_METHOD(StoreFixture, "commit refuses what is not a regular file and shows nothing") {
  auto pending = store->begin(uuid);
  REQUIRE(pending.has_value());
  write_file(pending->dir / "weights.bin", "w");
  std::string expected;
  SECTION("a symlink") {
    fs::create_symlink("weights.bin", pending->dir / "link.bin");
    expected = "'link.bin'";
  }
  SECTION("a top-level manifest.json") {
    write_file(pending->dir / "manifest.json", "{}");
    expected = "'manifest.json'";
  }
  auto manifest = store->commit(*pending);
  REQUIRE_FALSE(manifest.has_value());
  CHECK(manifest.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(manifest.error().message, Catch::Contains(expected));
  CHECK(entries(store->root()).empty());
}

TEST_CASE_METHOD(StoreFixture, "commit refuses a pending checkpoint that is not this store's") {
  TempDir elsewhere;
  const PendingCheckpoint foreign{.uuid = uuid, .dir = elsewhere.path};
  CHECK(store->commit(foreign).error().code == ErrorCode::invalid_argument);
  CHECK(store->abort(foreign).error().code == ErrorCode::invalid_argument);
  CHECK(fs::exists(elsewhere.path));
}

TEST_CASE_METHOD(StoreFixture, "ids that are not canonical uuids are refused before any path is built") {
  for (const std::string bad : {"../../etc", "", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", ".tmp-x"}) {
    CAPTURE(bad);
    CHECK(store->begin(bad).error().code == ErrorCode::invalid_argument);
    CHECK(store->verify(bad).error().code == ErrorCode::invalid_argument);
    CHECK(store->path(bad).error().code == ErrorCode::invalid_argument);
    CHECK(store->remove(bad).error().code == ErrorCode::invalid_argument);
  }
}

TEST_CASE_METHOD(StoreFixture, "verify names the file that lost or changed a byte") {
  commit_example();
  const fs::path weights = committed() / "model/weights.bin";
  std::string content = read_file(weights);
  std::string expected;
  SECTION("one byte flipped") {
    content[50'000] ^= 1;
    write_file(weights, content);
    expected = "fails its SHA-256 check";
  }
  SECTION("truncated") {
    fs::resize_file(weights, 99'999);
    expected = "has 99999 bytes; the manifest says 100000";
  }
  SECTION("missing") {
    fs::remove(weights);
    expected = "is missing";
  }
  auto verified = store->verify(uuid);
  REQUIRE_FALSE(verified.has_value());
  CHECK(verified.error().code == ErrorCode::corruption);
  CHECK_THAT(verified.error().message, Catch::Contains(weights.string()) && Catch::Contains(expected));
}

TEST_CASE_METHOD(StoreFixture, "verify reports a damaged or missing manifest as corruption") {
  commit_example();
  const fs::path manifest = committed() / kManifestFileName;
  SECTION("damaged") { write_file(manifest, "{\"format_version\": 1"); }
  SECTION("missing") { fs::remove(manifest); }
  SECTION("another checkpoint's") {
    std::string text = read_file(manifest);
    text.replace(text.find(uuid), uuid.size(), fresh_uuid());
    write_file(manifest, text);
  }
  auto verified = store->verify(uuid);
  REQUIRE_FALSE(verified.has_value());
  CHECK(verified.error().code == ErrorCode::corruption);
  CHECK_THAT(verified.error().message, Catch::Contains(manifest.string()));
}

TEST_CASE_METHOD(StoreFixture, "remove deletes a checkpoint and is idempotent") {
  commit_example();
  REQUIRE(store->remove(uuid).has_value());
  CHECK(store->path(uuid).error().code == ErrorCode::not_found);
  CHECK(entries(store->root()).empty());
  CHECK(store->remove(uuid).has_value());
  CHECK(store->remove(fresh_uuid()).has_value());
}

TEST_CASE_METHOD(StoreFixture, "download copies a verified checkpoint into a missing or empty folder") {
  commit_example();
  TempDir out;
  fs::path dest = out.path / "nested/copy";
  SECTION("missing folder") {}
  SECTION("empty folder, trailing separator") {
    fs::create_directories(dest);
    dest += "/";
  }
  REQUIRE(store->download(uuid, dest).has_value());
  const fs::path copy = out.path / "nested/copy";
  for (const auto& [relative, content] : kFiles) CHECK(read_file(copy / relative) == content);
  CHECK(read_file(copy / kManifestFileName) == read_file(committed() / kManifestFileName));
  CHECK(entries(out.path / "nested") == std::vector<std::string>{"copy"});
}

TEST_CASE_METHOD(StoreFixture, "download refuses a non-empty folder and leaves nothing from a corrupt checkpoint") {
  commit_example();
  TempDir out;
  const fs::path dest = out.path / "copy";
  SECTION("non-empty destination") {
    write_file(dest / "mine.txt", "keep me");
    CHECK(store->download(uuid, dest).error().code == ErrorCode::already_exists);
    CHECK(entries(dest) == std::vector<std::string>{"mine.txt"});
  }
  SECTION("corrupt source") {
    write_file(committed() / "state.json", "{}");
    auto downloaded = store->download(uuid, dest);
    REQUIRE_FALSE(downloaded.has_value());
    CHECK(downloaded.error().code == ErrorCode::corruption);
    CHECK_THAT(downloaded.error().message, Catch::Contains("state.json"));
    CHECK(entries(out.path).empty());
  }
}

TEST_CASE_METHOD(StoreFixture, "sweep_incomplete removes leftovers of crashed writes and removals only") {
  commit_example();
  const std::string crashed_write = fresh_uuid();
  auto pending = store->begin(crashed_write);
  REQUIRE(pending.has_value());
  write_file(pending->dir / "weights.bin", "half");
  write_file(store->root() / (".tmp-" + fresh_uuid() + ".removing") / "x.bin", "old");

  REQUIRE(store->sweep_incomplete().has_value());
  CHECK(entries(store->root()) == std::vector<std::string>{uuid});
  CHECK(store->verify(uuid).has_value());
  CHECK(store->begin(crashed_write).has_value());
}

TEST_CASE("make_checkpoint_store refuses the object stores of other builds") {
  TempDir temp;
  for (const std::string type : {"s3", "gcs", "azure"}) {
    config::CheckpointStorage storage;
    storage.type = type;
    auto store = make_checkpoint_store(storage, temp.path);
    REQUIRE_FALSE(store.has_value());
    CHECK(store.error().code == ErrorCode::invalid_argument);
    CHECK(store.error().message == "checkpoint_storage.type " + type + " is not available in this build");
  }
}

TEST_CASE("make_checkpoint_store uses the cluster's default root when the experiment names none") {
  TempDir temp;
  const fs::path root = temp.path / "master-data/checkpoints";
  auto store = make_checkpoint_store(std::nullopt, root);
  REQUIRE(store.has_value());
  const std::string uuid = fresh_uuid();
  commit_files(**store, uuid, {{"w.bin", "w"}});
  CHECK(fs::exists(root / uuid / "w.bin"));
}

TEST_CASE("make_checkpoint_store puts shared_fs checkpoints under host_path and storage_path") {
  TempDir temp;
  config::CheckpointStorage storage;
  storage.host_path = temp.path.string();
  fs::path expected_root;
  SECTION("no storage_path") { expected_root = temp.path; }
  SECTION("relative storage_path") {
    storage.storage_path = "team/ckpt";
    expected_root = temp.path / "team/ckpt";
  }
  SECTION("absolute storage_path inside host_path") {
    storage.storage_path = (temp.path / "abs").string();
    expected_root = temp.path / "abs";
  }
  auto store = make_checkpoint_store(storage, temp.path / "unused");
  REQUIRE(store.has_value());
  const std::string uuid = fresh_uuid();
  commit_files(**store, uuid, {{"w.bin", "w"}});
  CHECK(fs::exists(expected_root / uuid / "w.bin"));
  CHECK_FALSE(fs::exists(temp.path / "unused"));
}

TEST_CASE("make_checkpoint_store refuses a storage_path outside host_path and a missing host_path") {
  TempDir temp;
  config::CheckpointStorage storage;
  storage.host_path = (temp.path / "host").string();
  fs::create_directories(storage.host_path);
  SECTION("escaping relative path") {
    storage.storage_path = "../elsewhere";
    CHECK(make_checkpoint_store(storage, temp.path).error().code == ErrorCode::invalid_argument);
  }
  SECTION("absolute path elsewhere") {
    storage.storage_path = "/var/tmp";
    auto store = make_checkpoint_store(storage, temp.path);
    REQUIRE_FALSE(store.has_value());
    CHECK_THAT(store.error().message, Catch::Contains("outside host_path"));
  }
  SECTION("host_path does not exist") {
    storage.host_path = (temp.path / "not-mounted").string();
    CHECK(make_checkpoint_store(storage, temp.path).error().code == ErrorCode::not_found);
    CHECK_FALSE(fs::exists(temp.path / "not-mounted"));
  }
}
