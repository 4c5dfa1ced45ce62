#include "runtime/core/file_read.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/unique_fd.hpp"

namespace volador {
namespace {

constexpr std::size_t kFirstRead = 16 * 1024;

}  // namespace

Result<std::string> read_file(const std::filesystem::path& path) {
  auto failed = [&](int error) {
    const auto why = "cannot read " + path.string() + ": " + std::strerror(error);
    return fail(error == ENOENT ? Error::not_found(why) : Error::io(why));
  };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return failed(errno);
  std::string text(kFirstRead, '\0');  // a small file's bytes come in one read, its end in the next
  std::size_t done = 0;
  for (;;) {
    if (done == text.size()) text.resize(text.size() * 2);
    const auto n = ::read(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(errno);
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace volador
