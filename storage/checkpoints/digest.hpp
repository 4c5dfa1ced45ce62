#pragma once
// Internal to volador_checkpoints: SHA-256 of file contents (OpenSSL EVP),
// read in one pass that can also feed a copy.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::checkpoints {

struct FileDigest {
  std::uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
};

// Receives each chunk read, in order; an error stops the read and is returned.
using ChunkSink = std::function<Status(std::span<const char>)>;

// Reads `fd` (opened on `path`, named in errors) to its end and digests it.
// Error io when a read or the sink fails; internal when OpenSSL fails.
Result<FileDigest> digest_fd(int fd, const std::filesystem::path& path, const ChunkSink& sink = {});

}  // namespace volador::checkpoints
