#include "storage/checkpoints/posix_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace volador::checkpoints {

Error io_error(std::string_view what, const std::filesystem::path& path, int err) {
  return Error::io(std::string(what) + " " + path.string() + ": " + std::strerror(err));
}

Status close_fd(UniqueFd& fd, const std::filesystem::path& path) {
  const int raw = fd.release();
  if (raw >= 0 && ::close(raw) != 0) return fail(io_error("cannot close", path, errno));
  return {};
}

Result<UniqueFd> open_fd(const std::filesystem::path& path, int flags, int mode) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return fail(io_error("cannot open", path, errno));
  return UniqueFd(fd);
}

Status write_all(int fd, std::span<const char> bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return fail(io_error("cannot write", path, errno));
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return {};
}

Result<std::size_t> read_some(int fd, std::span<char> buffer, const std::filesystem::path& path) {
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) return fail(io_error("cannot read", path, errno));
  }
}

Status fsync_fd(int fd, const std::filesystem::path& path) {
  if (::fsync(fd) != 0) return fail(io_error("cannot fsync", path, errno));
  return {};
}

Status fsync_directory(const std::filesystem::path& dir) {
  auto fd = open_fd(dir, O_RDONLY | O_DIRECTORY);
  if (!fd) return fail(fd.error());
  if (auto synced = fsync_fd(fd->get(), dir); !synced) return synced;
  return close_fd(*fd, dir);
}

Status write_new_file_durably(const std::filesystem::path& path, std::span<const char> bytes) {
  auto fd = open_fd(path, O_WRONLY | O_CREAT | O_EXCL);
  if (!fd) return fail(fd.error());
  if (auto written = write_all(fd->get(), bytes, path); !written) return written;
  if (auto synced = fsync_fd(fd->get(), path); !synced) return synced;
  return close_fd(*fd, path);
}

}  // namespace volador::checkpoints
