#include "runtime/core/file_rewrite.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "runtime/core/unique_fd.hpp"

namespace volador {

Status rewrite_file(const std::filesystem::path& path, std::string_view text) {
  auto failed = [&](int error) { return fail(Error::io("cannot write " + path.string() + ": " + std::strerror(error))); };
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666));
  if (fd.get() < 0) return failed(errno);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return failed(errno);
  for (std::size_t done = 0; done < text.size();) {
    const auto written = ::pwrite(fd.get(), text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return failed(written < 0 ? errno : EIO);
    done += static_cast<std::size_t>(written);
  }
  // Only a longer old text needs cutting: ext4 truncates (walks the file's extents) even to the same size.
  const auto length = static_cast<off_t>(text.size());
  if (info.st_size > length && ::ftruncate(fd.get(), length) != 0) return failed(errno);
  if (::close(fd.release()) != 0) return failed(errno);
  return {};
}

}  // namespace volador
