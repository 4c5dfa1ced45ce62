#include "runtime/core/folder_names.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/unique_fd.hpp"

namespace volador {

std::optional<std::vector<std::string>> folder_names(const std::filesystem::path& dir, std::size_t at_most) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return std::nullopt;
  std::vector<std::string> names;
  alignas(dirent64) char buffer[2048];
  for (;;) {
    const auto n = ::getdents64(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return names;
    for (long offset = 0; offset < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + offset);
      offset += entry->d_reclen;
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      names.emplace_back(entry->d_name);
      if (names.size() > at_most) return names;
    }
  }
}

}  // namespace volador
