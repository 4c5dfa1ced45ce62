#include "runtime/tls/private_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace volador::tls {
namespace fs = std::filesystem;

namespace {

Error io_error(const std::string& what, const fs::path& path) {
  return Error::io("cannot " + what + " " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

Status write_private_file(const fs::path& path, const std::string& text, Durability durability) {
  const auto partial = fs::path(path).concat(".partial");
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(io_error("create", partial));
  bool written = ::fchmod(fd, 0600) == 0;  // an older file's mode does not survive O_TRUNC's reuse
  for (std::size_t done = 0; written && done < text.size();) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    written = n > 0;
    done += written ? static_cast<std::size_t>(n) : 0;
  }
  written = written && (durability == Durability::transient || ::fsync(fd) == 0);
  const auto failure = written ? Status{} : fail(io_error("write", partial));
  ::close(fd);
  if (!failure) return failure;
  if (::rename(partial.c_str(), path.c_str()) != 0) return fail(io_error("rename into", path));
  return {};
}

Status make_private_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(Error::io("cannot create " + dir.string() + ": " + ec.message()));
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  if (ec) return fail(Error::io("cannot make " + dir.string() + " private: " + ec.message()));
  return {};
}

Result<std::string> read_text_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!fs::exists(path)) return fail(Error::not_found(path.string() + ": no such file"));
    return fail(io_error("read", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace volador::tls
