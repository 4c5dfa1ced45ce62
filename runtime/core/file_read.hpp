#pragma once
// Reading a small file whole (a trial file, a JSON file of a few KB): one
// open, as few reads as its size takes, one close. An ifstream costs a
// buffer and a stream object, and parsing from it reads a character at a time.

#include <filesystem>
#include <string>

#include "runtime/core/error.hpp"

namespace volador {

// The bytes of the file at `path`. Errors: not_found when it does not exist,
// io otherwise, each naming the file and the system's reason.
[[nodiscard]] Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace volador
