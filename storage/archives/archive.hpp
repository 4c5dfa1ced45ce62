#pragma once
// Model-definition archives: the project folder given to `experiment create`,
// packed by the client, stored by the master, unpacked by the agent into
// each trial's working folder. Format: gzip-compressed POSIX tar (libarchive).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::archives {

// Determined's limit on a model definition: data sets are mounted, not uploaded.
inline constexpr std::uint64_t kMaxArchiveBytes = 96ull << 20;

// Packs every regular file and folder under `dir` (paths relative to it).
// Errors: not_found if dir is missing; invalid_argument naming the path of a
// symlink or special file; resource_exhausted when the packed size exceeds
// `max_bytes` (the message names the limit and the largest files).
Result<std::string> pack_directory(const std::filesystem::path& dir,
                                   std::uint64_t max_bytes = kMaxArchiveBytes);

// Unpacks into `dest` (created if missing). Refuses, before writing anything
// outside `dest`, entries that are absolute, contain "..", or are neither a
// regular file nor a folder; refuses more than `max_unpacked_bytes` in total.
Status unpack_archive(std::string_view archive, const std::filesystem::path& dest,
                      std::uint64_t max_unpacked_bytes = 4 * kMaxArchiveBytes);

}  // namespace volador::archives
