#include "runtime/process/message_channel.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace volador::process {
namespace {

constexpr std::size_t kHeaderBytes = 4;

bool is_open(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) >= 0; }

bool is_socket(int fd) {
  struct stat info {};
  return fstat(fd, &info) == 0 && S_ISSOCK(info.st_mode);
}

}  // namespace

std::vector<char> frame_message(const Message& message) {
  const auto size = static_cast<std::uint32_t>(message.size());
  std::vector<char> framed(kHeaderBytes + message.size());
  for (std::size_t i = 0; i < kHeaderBytes; ++i) framed[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  std::memcpy(framed.data() + kHeaderBytes, message.data(), message.size());
  return framed;
}

void FrameReader::append(const char* data, std::size_t size) { buffer_.insert(buffer_.end(), data, data + size); }

Result<std::optional<Message>> FrameReader::next() {
  if (buffer_.size() < kHeaderBytes) return std::optional<Message>();
  std::uint32_t size = 0;
  for (std::size_t i = 0; i < kHeaderBytes; ++i) size |= std::uint32_t(static_cast<unsigned char>(buffer_[i])) << (8 * i);
  if (size > kMaxMessageBytes)
    return fail(Error::corruption("a message of " + std::to_string(size) + " bytes announced, over the limit of " +
                                  std::to_string(kMaxMessageBytes)));
  if (buffer_.size() < kHeaderBytes + size) return std::optional<Message>();
  Message message(buffer_.begin() + kHeaderBytes, buffer_.begin() + kHeaderBytes + size);
  buffer_.erase(buffer_.begin(), buffer_.begin() + kHeaderBytes + size);
  return std::optional(std::move(message));
}

Result<std::optional<MessageChannel>> MessageChannel::from_environment(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return std::optional<MessageChannel>();
  int read_fd = -1, write_fd = -1;
  char end = 0;
  if (std::sscanf(value, "%d,%d%c", &read_fd, &write_fd, &end) != 2 || !is_open(read_fd) || !is_open(write_fd))
    return fail(Error::invalid_argument(std::string(variable) + "=" + value + ": not two open descriptors READ,WRITE"));
  if (!is_socket(write_fd))
    return fail(Error::invalid_argument(std::string(variable) + "=" + value +
                                        ": WRITE is not a socket (a pipe's write could raise SIGPIPE)"));
  fcntl(read_fd, F_SETFD, FD_CLOEXEC);
  fcntl(write_fd, F_SETFD, FD_CLOEXEC);
  return std::optional(MessageChannel(read_fd, write_fd));
}

Result<std::optional<Message>> MessageChannel::receive() {
  for (;;) {
    auto message = frames_.next();
    if (!message || *message) return message;
    char buffer[64 * 1024];
    const auto n = read(read_fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Error::io(std::string("reading the parent's messages: ") + std::strerror(errno)));
    if (n == 0) return std::optional<Message>();
    frames_.append(buffer, static_cast<std::size_t>(n));
  }
}

Status MessageChannel::send(const Message& message) {
  const auto framed = frame_message(message);
  std::size_t done = 0;
  while (done < framed.size()) {
    const auto n = ::send(write_fd_, framed.data() + done, framed.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(Error::io(std::string("writing to the parent: ") + std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  return {};
}

MessageChannel::MessageChannel(MessageChannel&& other) noexcept
    : read_fd_(std::exchange(other.read_fd_, -1)),
      write_fd_(std::exchange(other.write_fd_, -1)),
      frames_(std::move(other.frames_)) {}

MessageChannel::~MessageChannel() {
  if (read_fd_ >= 0) close(read_fd_);
  if (write_fd_ >= 0) close(write_fd_);
}

}  // namespace volador::process
