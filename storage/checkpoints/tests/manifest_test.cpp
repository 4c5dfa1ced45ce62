#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "storage/checkpoints/manifest.hpp"

using namespace volador;
using namespace volador::checkpoints;

namespace {

const std::string kSha(64, 'a');

CheckpointManifest example() {
  return {.uuid = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
          .created_unix_ms = 1'712'345'678'901,
          .total_bytes = 12,
          .files = {{.path = "model/w.bin", .size = 10, .sha256 = kSha}, {.path = "state.json", .size = 2, .sha256 = kSha}}};
}

nlohmann::json example_json() { return nlohmann::json::parse(*manifest_to_json(example())); }

}  // namespace

TEST_CASE("a manifest survives its JSON form") {
  auto text = manifest_to_json(example());
  REQUIRE(text.has_value());
  auto parsed = parse_manifest(*text, "m.json");
  REQUIRE(parsed.has_value());
  CHECK(parsed->format_version == kManifestFormatVersion);
  CHECK(parsed->uuid == example().uuid);
  CHECK(parsed->created_unix_ms == 1'712'345'678'901);
  CHECK(parsed->total_bytes == 12);
  REQUIRE(parsed->files.size() == 2);
  CHECK(parsed->files[0].path == "model/w.bin");
  CHECK(parsed->files[0].size == 10);
  CHECK(parsed->files[1].sha256 == kSha);
}

TEST_CASE("parse_manifest reports every kind of damage as corruption naming the source") {
  struct Case {
    const char* name;
    std::string text;
  };
  const auto edited = [](auto edit) {
    nlohmann::json document = example_json();
    edit(document);
    return document.dump();
  };
  const Case cases[] = {
      {"not JSON", "{\"format_version\": 1"},
      {"not an object", "[]"},
      {"unknown version", edited([](auto& d) { d["format_version"] = 2; })},
      {"missing uuid", edited([](auto& d) { d.erase("uuid"); })},
      {"negative size", edited([](auto& d) { d["files"][0]["size"] = -1; })},
      {"size as text", edited([](auto& d) { d["files"][0]["size"] = "10"; })},
      {"files not a list", edited([](auto& d) { d["files"] = nlohmann::json::object(); })},
      {"missing files", edited([](auto& d) { d.erase("files"); })},
      {"short sha256", edited([](auto& d) { d["files"][0]["sha256"] = "abc"; })},
      {"uppercase sha256", edited([](auto& d) { d["files"][0]["sha256"] = std::string(64, 'A'); })},
      {"escaping path", edited([](auto& d) { d["files"][0]["path"] = "../outside"; })},
      {"absolute path", edited([](auto& d) { d["files"][0]["path"] = "/etc/passwd"; })},
      {"wrong total", edited([](auto& d) { d["total_bytes"] = 13; })},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    auto parsed = parse_manifest(c.text, "/ckpt/m.json");
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().code == ErrorCode::corruption);
    CHECK_THAT(parsed.error().message, Catch::StartsWith("/ckpt/m.json: "));
  }
}

TEST_CASE("is_safe_relative_path allows only plain relative paths") {
  for (const char* good : {"a", "a/b.bin", "dir.with.dots/..x", ".hidden"}) {
    CAPTURE(good);
    CHECK(is_safe_relative_path(good));
  }
  for (const char* bad : {"", "/a", "a/", "a//b", "./a", "a/./b", "..", "a/../b", "a/.."}) {
    CAPTURE(bad);
    CHECK_FALSE(is_safe_relative_path(bad));
  }
}

TEST_CASE("manifest_to_json refuses a file name that is not UTF-8") {
  CheckpointManifest manifest = example();
  manifest.files[0].path = "w\xff.bin";
  auto text = manifest_to_json(manifest);
  REQUIRE_FALSE(text.has_value());
  CHECK(text.error().code == ErrorCode::invalid_argument);
}
