#include "runtime/sandbox/kernel_oom_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace volador::sandbox {
namespace {

constexpr const char* kKernelLog = "/dev/kmsg";

// The value of `key` (e.g. "oom_memcg=") in a comma-separated line; empty when absent.
std::string_view field(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  const auto value = line.substr(at + key.size());
  return value.substr(0, value.find(','));
}

}  // namespace

bool oom_kill_logged_for(std::string_view kernel_log, std::string_view container_id) {
  if (container_id.empty()) return false;
  while (!kernel_log.empty()) {
    const auto end = kernel_log.find('\n');
    const auto line = kernel_log.substr(0, end);
    kernel_log = end == std::string_view::npos ? std::string_view{} : kernel_log.substr(end + 1);
    if (line.find("oom-kill:") != std::string_view::npos &&
        field(line, "oom_memcg=").find(container_id) != std::string_view::npos)
      return true;
  }
  return false;
}

Result<std::string> read_kernel_log() {
  const int fd = ::open(kKernelLog, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(Error::unavailable(std::string("cannot read ") + kKernelLog + ": " + std::strerror(errno)));
  std::string messages;
  std::array<char, 8192> record{};  // one read, one record: "PRIORITY,SEQUENCE,TIME,FLAGS;MESSAGE\n"
  for (;;) {
    const auto got = ::read(fd, record.data(), record.size());
    if (got < 0 && (errno == EPIPE || errno == EINTR)) continue;  // EPIPE: a record overwritten while reading
    if (got <= 0) break;                                           // EAGAIN: the end of the log
    const std::string_view text(record.data(), static_cast<std::size_t>(got));
    const auto start = text.find(';');
    if (start == std::string_view::npos) continue;
    const auto message = text.substr(start + 1);
    messages += message.substr(0, message.find('\n'));
    messages += '\n';
  }
  ::close(fd);
  return messages;
}

}  // namespace volador::sandbox
