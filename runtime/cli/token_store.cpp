#include "runtime/cli/token_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace volador::cli {
namespace {

namespace fs = std::filesystem;

// The file's JSON object; empty when there is no file.
Result<nlohmann::json> read_tokens(const fs::path& file) {
  std::ifstream in(file);
  if (!in && fs::exists(file)) return fail(Error::io("cannot read " + file.string()));
  if (!in) return nlohmann::json::object();
  std::stringstream text;
  text << in.rdbuf();
  auto json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return fail(Error::corruption(file.string() + " is not a JSON object of tokens (delete it and log in again)"));
  return json;
}

// Replaces `file` with `json` through a temporary file, mode 0600.
Status write_tokens(const fs::path& file, const nlohmann::json& json) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return fail(Error::io("cannot create " + file.parent_path().string() + ": " + ec.message()));
  ::chmod(file.parent_path().c_str(), 0700);
  const fs::path temporary = file.string() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(Error::io("cannot write " + temporary.string() + ": " + std::strerror(errno)));
  const std::string text = json.dump(2) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written || ::rename(temporary.c_str(), file.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return fail(Error::io("cannot write " + file.string() + ": " + std::strerror(errno)));
  }
  return {};
}

}  // namespace

Result<fs::path> default_token_file() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0')
    return fail(Error::invalid_argument("HOME is not set: cannot find ~/.volador/tokens.json (set VOLADOR_TOKEN)"));
  return fs::path(home) / ".volador" / "tokens.json";
}

Result<std::optional<StoredToken>> load_token(const fs::path& file, const std::string& master) {
  auto tokens = read_tokens(file);
  if (!tokens) return fail(tokens.error());
  const auto found = tokens->find(master);
  if (found == tokens->end()) return std::optional<StoredToken>();
  const auto& entry = *found;
  if (!entry.is_object() || !entry.contains("token") || !entry["token"].is_string())
    return fail(Error::corruption(file.string() + ": the entry for " + master + " has no token (log in again)"));
  return std::optional<StoredToken>(StoredToken{.token = entry["token"].get<std::string>(),
                                                .user = entry.value("user", std::string()),
                                                .expires_at_ms = entry.value("expires_at_ms", std::int64_t{0})});
}

Status save_token(const fs::path& file, const std::string& master, const StoredToken& token) {
  auto tokens = read_tokens(file);
  if (!tokens) tokens = nlohmann::json::object();  // a damaged file is replaced
  (*tokens)[master] = {{"token", token.token}, {"user", token.user}, {"expires_at_ms", token.expires_at_ms}};
  return write_tokens(file, *tokens);
}

Status forget_token(const fs::path& file, const std::string& master) {
  auto tokens = read_tokens(file);
  if (!tokens) tokens = nlohmann::json::object();
  if (!tokens->contains(master)) return {};
  tokens->erase(master);
  return write_tokens(file, *tokens);
}

}  // namespace volador::cli
