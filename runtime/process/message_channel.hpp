#pragma once
// A channel of messages between a parent and a child process beside the
// child's stdout and stderr: a stream socket each way, each message framed as a 4-byte
// little-endian length and that many bytes. The parent's side is
// ChildProcess (ProcessSpec::channel_variable); the child's is MessageChannel,
// found through the variable the parent set.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::process {

using Message = std::vector<char>;

// The largest message either side accepts.
inline constexpr std::size_t kMaxMessageBytes = 16u << 20;

// `message` with its length in front.
std::vector<char> frame_message(const Message& message);

// Cuts a byte stream into the messages framed in it.
class FrameReader {
 public:
  void append(const char* data, std::size_t size);
  // The next whole message, if one has arrived. Error corruption when a frame
  // announces more than kMaxMessageBytes (the stream cannot be trusted after it).
  Result<std::optional<Message>> next();

 private:
  std::vector<char> buffer_;
};

// The child's side: the descriptors its parent named in an environment variable ("READ,WRITE").
class MessageChannel {
 public:
  // The channel named by `variable`; nullopt when it is not set. Error
  // invalid_argument when its value is not two open descriptors, the write
  // one a socket. Both are made close-on-exec, so programs the child starts
  // do not hold them.
  static Result<std::optional<MessageChannel>> from_environment(const char* variable);

  // Blocks until the next message; nullopt when the parent closed its end.
  // Error io or corruption when the stream broke.
  Result<std::optional<Message>> receive();
  // Writes one message whole (blocking). Error io when the parent is gone
  // (never SIGPIPE: the write end is a socket, sent to with MSG_NOSIGNAL).
  Status send(const Message& message);

  MessageChannel(MessageChannel&& other) noexcept;
  MessageChannel& operator=(MessageChannel&&) = delete;
  MessageChannel(const MessageChannel&) = delete;
  ~MessageChannel();

 private:
  MessageChannel(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  int read_fd_;
  int write_fd_;
  FrameReader frames_;
};

}  // namespace volador::process
