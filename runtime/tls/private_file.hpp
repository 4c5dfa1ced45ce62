#pragma once
// Files that hold secrets (private keys, bundles): created with mode 0600
// from the start, written aside and renamed, so no reader ever sees a
// partial file and no other user ever sees the secret.

#include <filesystem>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::tls {

// Whether a private file must outlive a crash of the machine.
enum class Durability {
  synced,     // on disk before the call returns (fsync)
  transient,  // left to the kernel to write back: a file nothing reads after a crash (a crash may leave it empty)
};

// Writes `text` to `path` (mode 0600), replacing any file there. Error io naming the path.
Status write_private_file(const std::filesystem::path& path, const std::string& text,
                          Durability durability = Durability::synced);

// Creates `dir` (and its parents) and sets its mode to 0700. Error io naming it.
Status make_private_folder(const std::filesystem::path& dir);

// The whole file as text. Error not_found / io naming the path.
Result<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace volador::tls
