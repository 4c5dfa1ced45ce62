#pragma once
// Internal to volador_checkpoints: the POSIX calls the stores need for
// durability (open, write, fsync and close of files and folders, on
// runtime/core's UniqueFd), with errors as Error::io values that name the
// path and the errno text.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"
#include "runtime/core/unique_fd.hpp"

namespace volador::checkpoints {

// Error::io("<what> <path>: <strerror(err)>").
Error io_error(std::string_view what, const std::filesystem::path& path, int err);

// Closes `fd` now; an error (e.g. a delayed ENOSPC on NFS) names `path`.
Status close_fd(UniqueFd& fd, const std::filesystem::path& path);

// open(2) with O_CLOEXEC added.
Result<UniqueFd> open_fd(const std::filesystem::path& path, int flags, int mode = 0644);

// Writes every byte (retrying short writes and EINTR).
Status write_all(int fd, std::span<const char> bytes, const std::filesystem::path& path);

// Reads up to buffer.size() bytes; 0 at end of file.
Result<std::size_t> read_some(int fd, std::span<char> buffer, const std::filesystem::path& path);

Status fsync_fd(int fd, const std::filesystem::path& path);

// Opens the folder and fsyncs it, making its entries (creates, renames) durable.
Status fsync_directory(const std::filesystem::path& dir);

// Creates `path` with `bytes`, failing if it exists; fsynced and closed.
Status write_new_file_durably(const std::filesystem::path& path, std::span<const char> bytes);

}  // namespace volador::checkpoints
