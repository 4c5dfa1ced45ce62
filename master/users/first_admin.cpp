#include "master/users/first_admin.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <spdlog/spdlog.h>

#include "master/users/secrets.hpp"

namespace volador::master {
namespace {

// The first line of `file`, without its line ending.
Result<std::string> password_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return fail(Error::io("cannot read the admin password file " + file.string()));
  std::string line;
  std::getline(in, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return fail(Error::invalid_argument("the admin password file " + file.string() + " is empty"));
  return line;
}

// Writes `password` and a newline to `file`, readable by its owner only.
Status write_private(const std::filesystem::path& file, const std::string& password) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return fail(Error::io("cannot write " + file.string() + ": " + std::strerror(errno)));
  const std::string text = password + "\n";
  const bool written = ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
                       ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written) return fail(Error::io("cannot write " + file.string() + ": " + std::strerror(error)));
  return {};
}

}  // namespace

std::filesystem::path admin_password_file(const std::filesystem::path& data_dir) { return data_dir / "admin.password"; }

Status ensure_first_admin(UserDirectory& users, const std::filesystem::path& data_dir,
                          const AdminPasswordSource& source) {
  const bool random = !source.file && !source.value;
  std::string password;
  if (source.file) {
    auto read = password_in(*source.file);
    if (!read) return fail(read.error());
    password = std::move(*read);
  } else {
    password = source.value ? *source.value : new_password();
  }
  auto created = users.ensure_admin(password);
  if (!created) return fail(Error{created.error().code, "creating the first admin: " + created.error().message});
  if (!*created) return {};
  if (!random) {
    spdlog::info("first start: created user '{}' with the password given", kFirstAdmin);
    return {};
  }
  const auto file = admin_password_file(data_dir);
  if (auto written = write_private(file, password); !written) return written;
  spdlog::warn("first start: created user '{}' with password {} (also in {}; log in with `volador user login {}`)",
               kFirstAdmin, password, file.string(), kFirstAdmin);
  return {};
}

}  // namespace volador::master
