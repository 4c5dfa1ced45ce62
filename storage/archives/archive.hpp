#pragma once
// Model-definition archives: the project folder given to `experiment create`,
// packed by the client, stored by the master, unpacked by the agent into
// each trial's working folder. Format: gzip-compressed POSIX tar (libarchive).

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::archives {

// Determined's limit on a model definition: data sets are mounted, not uploaded.
inline constexpr std::uint64_t kMaxArchiveBytes = 96ull << 20;
// The most a model definition may unpack to (its files' sizes in total): an
// archive within kMaxArchiveBytes can still compress far more than that.
inline constexpr std::uint64_t kMaxUnpackedBytes = 4 * kMaxArchiveBytes;

// Packs every regular file and folder under `dir` (paths relative to it).
// Errors: not_found if dir is missing; invalid_argument naming the path of a
// symlink or special file; resource_exhausted when the packed size exceeds
// `max_bytes` or the files add up to more than `max_unpacked_bytes`, what
// unpack_archive would refuse at launch (the message names the limit and the
// largest files).
Result<std::string> pack_directory(const std::filesystem::path& dir,
                                   std::uint64_t max_bytes = kMaxArchiveBytes,
                                   std::uint64_t max_unpacked_bytes = kMaxUnpackedBytes);

// Takes the next chunk of an archive being written; false stops the writing.
using ChunkWriter = std::function<bool(std::string_view chunk)>;

// Writes the archive pack_directory would make of `dir`, without a size
// limit, to `write` chunk by chunk (e.g. a checkpoint download). Errors as
// pack_directory's; io when `write` returned false.
Status stream_directory(const std::filesystem::path& dir, const ChunkWriter& write);

// Unpacks a gzip tar (or a zip, as a browser uploads a project) into `dest`
// (created if missing). Refuses, before writing anything
// outside `dest`, entries that are absolute, contain "..", or are neither a
// regular file nor a folder; refuses more than `max_unpacked_bytes` in total.
Status unpack_archive(std::string_view archive, const std::filesystem::path& dest,
                      std::uint64_t max_unpacked_bytes = kMaxUnpackedBytes);

// The content of the regular file at `path` (relative, as pack_directory
// names it: "pkg/model.py") in a gzip tar or zip, without unpacking the rest;
// nullopt when there is no such entry or it is not a regular file.
// Errors: corruption (not an archive), resource_exhausted when the file is
// over `max_bytes`.
Result<std::optional<std::string>> read_archive_file(std::string_view archive, std::string_view path,
                                                     std::uint64_t max_bytes);

}  // namespace volador::archives
