#pragma once
// The names in a small folder, read with one open and a few getdents64 calls
// into a buffer on the stack: what a check that a folder is empty, or holds
// one known name, needs. std::filesystem's iterators stat the folder, set its
// flags and allocate a 32 KiB buffer for each folder they open.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace volador {

// The names in folder `dir` (not "." and ".."), in no order; reading stops
// once more than `at_most` were seen, so a result longer than `at_most` says
// "more". nullopt when `dir` is no folder (a symlink to one included) or cannot be read.
std::optional<std::vector<std::string>> folder_names(const std::filesystem::path& dir, std::size_t at_most);

}  // namespace volador
