#include "storage/checkpoints/manifest.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace volador::checkpoints {
namespace {

using nlohmann::json;

struct Reader {
  const json& object;
  std::string_view source;

  Error corrupt(const std::string& what) const {
    return Error::corruption(std::string(source) + ": " + what);
  }

  Result<std::uint64_t> unsigned_field(const char* key) const {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_unsigned()) {
      return fail(corrupt(std::string(key) + " must be a non-negative integer"));
    }
    return it->get<std::uint64_t>();
  }

  Result<std::int64_t> integer_field(const char* key) const {
    auto it = object.find(key);
    if (it == object.end() || !it->is_number_integer()) return fail(corrupt(std::string(key) + " must be an integer"));
    return it->get<std::int64_t>();
  }

  Result<std::string> string_field(const char* key) const {
    auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return fail(corrupt(std::string(key) + " must be a string"));
    return it->get<std::string>();
  }
};

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 &&
         std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<ManifestFile> parse_file(const json& entry, std::string_view source) {
  if (!entry.is_object()) return fail(Error::corruption(std::string(source) + ": files holds a non-object"));
  const Reader reader{entry, source};
  auto path = reader.string_field("path");
  if (!path) return fail(path.error());
  if (!is_safe_relative_path(*path)) return fail(reader.corrupt("unsafe file path '" + *path + "'"));
  auto size = reader.unsigned_field("size");
  if (!size) return fail(size.error());
  auto sha256 = reader.string_field("sha256");
  if (!sha256) return fail(sha256.error());
  if (!is_sha256_hex(*sha256)) return fail(reader.corrupt("bad sha256 for '" + *path + "'"));
  return ManifestFile{.path = std::move(*path), .size = *size, .sha256 = std::move(*sha256)};
}

Status parse_files(const json& files, std::string_view source, CheckpointManifest& manifest) {
  if (!files.is_array()) return fail(Error::corruption(std::string(source) + ": files must be a list"));
  std::uint64_t sum = 0;
  for (const json& entry : files) {
    auto file = parse_file(entry, source);
    if (!file) return fail(file.error());
    sum += file->size;
    manifest.files.push_back(std::move(*file));
  }
  if (sum != manifest.total_bytes) {
    return fail(Error::corruption(std::string(source) + ": total_bytes " + std::to_string(manifest.total_bytes) +
                                  " differs from the files' sum " + std::to_string(sum)));
  }
  return {};
}

}  // namespace

bool is_safe_relative_path(std::string_view path) {
  if (path.empty()) return false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t slash = path.find('/', start);
    const std::string_view segment = path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

Result<std::string> manifest_to_json(const CheckpointManifest& manifest) {
  json files = json::array();
  for (const ManifestFile& file : manifest.files) {
    files.push_back({{"path", file.path}, {"size", file.size}, {"sha256", file.sha256}});
  }
  const json document{{"format_version", manifest.format_version},
                      {"uuid", manifest.uuid},
                      {"created_unix_ms", manifest.created_unix_ms},
                      {"total_bytes", manifest.total_bytes},
                      {"files", std::move(files)}};
  try {
    return document.dump(2) + "\n";
  } catch (const json::type_error&) {  // the only failure of dump(): a name that is not UTF-8
    return fail(Error::invalid_argument("checkpoint " + manifest.uuid + " has a file name that is not valid UTF-8"));
  }
}

Result<CheckpointManifest> parse_manifest(std::string_view text, std::string_view source) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return fail(Error::corruption(std::string(source) + ": not a JSON object"));
  const Reader reader{document, source};
  CheckpointManifest manifest;
  auto version = reader.unsigned_field("format_version");
  if (!version) return fail(version.error());
  if (*version != kManifestFormatVersion) {
    return fail(reader.corrupt("unknown format_version " + std::to_string(*version)));
  }
  auto uuid = reader.string_field("uuid");
  auto created = reader.integer_field("created_unix_ms");
  auto total = reader.unsigned_field("total_bytes");
  if (!uuid) return fail(uuid.error());
  if (!created) return fail(created.error());
  if (!total) return fail(total.error());
  manifest.uuid = std::move(*uuid);
  manifest.created_unix_ms = *created;
  manifest.total_bytes = *total;
  auto files = document.find("files");
  if (files == document.end()) return fail(reader.corrupt("files is missing"));
  if (auto parsed = parse_files(*files, source, manifest); !parsed) return fail(parsed.error());
  return manifest;
}

}  // namespace volador::checkpoints
