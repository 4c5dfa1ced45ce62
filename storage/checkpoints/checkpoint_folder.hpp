#pragma once
// Internal to volador_checkpoints: the content of one checkpoint folder
// against its manifest — sealing a freshly written folder, checking and
// copying a sealed one. Knows nothing of where folders live or their names.

#include <filesystem>
#include <string_view>

#include "runtime/core/error.hpp"
#include "storage/checkpoints/digest.hpp"
#include "storage/checkpoints/manifest.hpp"

namespace volador::checkpoints {

// Checksums every file under `dir`, writes `dir`/manifest.json, and makes
// every file and subfolder, the manifest and `dir` durable, fsynced at once
// (FsyncPool) in groups. Error invalid_argument naming
// a symlink, special file, non-UTF-8 name or top-level manifest.json; io on
// any system error (ENOSPC included).
Result<CheckpointManifest> seal_folder(const std::filesystem::path& dir, std::string_view uuid);

// Reads `dir`/file.path, feeding `sink` if given, and checks it against the
// manifest entry. Error corruption naming the file when it is missing, not a
// regular file, or differs in size or SHA-256; io when it cannot be read.
Status check_file(const std::filesystem::path& dir, const ManifestFile& file, const ChunkSink& sink = {});

// Copies the manifest's files from `from` into the existing empty folder
// `to`, checking each one as it goes (check_file's errors), then writes
// `manifest_text` as `to`/manifest.json.
Status copy_checked(const CheckpointManifest& manifest, std::string_view manifest_text,
                    const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace volador::checkpoints
