#pragma once
// Where the CLI keeps its login tokens: one JSON file (default
// ~/.volador/tokens.json, mode 0600 in a 0700 folder) mapping each master's
// HOST:PORT to {token, user, expires_at_ms}, so one can be logged in to
// several masters. Writes replace the file atomically.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "runtime/core/error.hpp"

namespace volador::cli {

struct StoredToken {
  std::string token;
  std::string user;
  std::int64_t expires_at_ms = 0;
};

// $HOME/.volador/tokens.json; invalid_argument when HOME is not set.
Result<std::filesystem::path> default_token_file();

// The token stored for `master`; nullopt when none (or no file). corruption
// when the file is not the JSON this writes (naming it).
Result<std::optional<StoredToken>> load_token(const std::filesystem::path& file, const std::string& master);
// Stores (replacing) the token for `master`, keeping the others.
Status save_token(const std::filesystem::path& file, const std::string& master, const StoredToken& token);
// Removes the token for `master`, if any.
Status forget_token(const std::filesystem::path& file, const std::string& master);

}  // namespace volador::cli
