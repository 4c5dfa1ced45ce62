#pragma once
// Rewriting a small file that is written again and again (a trial's JSON
// files in a reused working folder): the same file, written in place and cut
// to its length, never emptied first. On ext4 an emptied file's blocks are
// freed, and its new ones are allocated and flushed at close (auto_da_alloc):
// block I/O on every rewrite.

#include <filesystem>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador {

// Writes `text` over the file at `path`, made if missing; a symlink there is
// refused, never written through. Error io naming the file and the system's reason.
[[nodiscard]] Status rewrite_file(const std::filesystem::path& path, std::string_view text);

}  // namespace volador
