#pragma once
// manifest.json: what a committed checkpoint holds, written last by commit()
// and read by verify() and download(). Format version 1:
//   {"format_version": 1, "uuid": "...", "created_unix_ms": 1712345678901,
//    "total_bytes": 123, "files": [{"path": "model/weights.bin", "size": 120,
//    "sha256": "<64 hex>"}, ...]}
// Paths are relative, `/`-separated, sorted, never "." / ".." / empty segments.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::checkpoints {

inline constexpr std::string_view kManifestFileName = "manifest.json";
inline constexpr std::uint32_t kManifestFormatVersion = 1;

struct ManifestFile {
  std::string path;  // relative to the checkpoint folder
  std::uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
};

struct CheckpointManifest {
  std::uint32_t format_version = kManifestFormatVersion;
  std::string uuid;
  std::int64_t created_unix_ms = 0;
  std::uint64_t total_bytes = 0;  // sum of the files' sizes
  std::vector<ManifestFile> files;
};

// Error invalid_argument when a path is not valid UTF-8 (JSON cannot hold it).
Result<std::string> manifest_to_json(const CheckpointManifest& manifest);

// Error corruption (naming `source`, e.g. the manifest's path) when the text is
// not JSON, a field is missing or mistyped, a path is unsafe, a checksum is not
// 64 hex digits, total_bytes differs from the sum, or the version is unknown.
Result<CheckpointManifest> parse_manifest(std::string_view text, std::string_view source);

// True for a relative `/`-separated path without empty, "." or ".." segments.
[[nodiscard]] bool is_safe_relative_path(std::string_view path);

}  // namespace volador::checkpoints
