#include "runtime/collective/handshake.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/collective/socket.hpp"

namespace volador::collective {

namespace {

constexpr std::uint32_t kHelloMagic = 0x484c4456;  // "VDLH"
constexpr std::uint32_t kReplyMagic = 0x414c4456;  // "VDLA"
constexpr std::uint16_t kVersion = 1;
constexpr std::uint32_t kAccepted = 0;
constexpr std::uint32_t kRefused = 1;

struct HelloHeader {
  std::uint32_t magic = kHelloMagic;
  std::uint16_t version = kVersion;
  std::uint16_t secret_bytes = 0;
  std::uint32_t size = 0;
  std::uint32_t rank = 0;
};

struct Reply {
  std::uint32_t magic = kReplyMagic;
  std::uint32_t verdict = kRefused;
  std::uint32_t rank = 0;
};

template <class T>
std::span<std::byte> bytes_of(T& value) {
  return std::as_writable_bytes(std::span(&value, 1));
}

Result<int> refuse(int fd, const std::string& why, Deadline& deadline) {
  (void)answer_hello(fd, false, -1, deadline);  // best effort: the connection is closed next anyway
  return fail(Error::invalid_argument("refused a data-plane connection: " + why));
}

}  // namespace

bool constant_time_equal(std::string_view expected, std::string_view given) {
  unsigned diff = expected.size() == given.size() ? 0U : 1U;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const char g = given.empty() ? '\0' : given[i % given.size()];
    diff |= static_cast<unsigned char>(expected[i] ^ g);
  }
  return diff == 0;
}

Status send_hello(int fd, std::string_view secret, int size, int rank, Deadline& deadline) {
  if (secret.empty() || secret.size() > kMaxSecretBytes) {
    return fail(Error::invalid_argument("the group secret must have 1 to 256 bytes"));
  }
  HelloHeader header;
  header.secret_bytes = static_cast<std::uint16_t>(secret.size());
  header.size = static_cast<std::uint32_t>(size);
  header.rank = static_cast<std::uint32_t>(rank);
  if (auto sent = send_exact(fd, bytes_of(header), deadline); !sent) return sent;
  return send_exact(fd, std::as_bytes(std::span(secret)), deadline);
}

Status answer_hello(int fd, bool accept, int my_rank, Deadline& deadline) {
  Reply reply{kReplyMagic, accept ? kAccepted : kRefused, static_cast<std::uint32_t>(my_rank)};
  return send_exact(fd, bytes_of(reply), deadline);
}

Result<int> read_hello(int fd, std::string_view secret, int size, Deadline& deadline) {
  HelloHeader header;
  if (auto got = recv_exact(fd, bytes_of(header), deadline); !got) return fail(got.error());
  if (header.magic != kHelloMagic || header.version != kVersion || header.secret_bytes > kMaxSecretBytes) {
    return refuse(fd, "not a volador hello", deadline);
  }
  std::array<char, kMaxSecretBytes> given{};
  auto given_bytes = std::as_writable_bytes(std::span(given)).first(header.secret_bytes);
  if (auto got = recv_exact(fd, given_bytes, deadline); !got) return fail(got.error());
  if (!constant_time_equal(secret, std::string_view(given.data(), header.secret_bytes))) {
    return refuse(fd, "wrong secret", deadline);
  }
  if (header.size != static_cast<std::uint32_t>(size)) {
    return refuse(fd, "group size " + std::to_string(header.size) + " != " + std::to_string(size), deadline);
  }
  return static_cast<int>(header.rank);
}

Status await_welcome(int fd, int peer, Deadline& deadline) {
  Reply reply;
  if (auto got = recv_exact(fd, bytes_of(reply), deadline); !got) {
    return fail(Error::unavailable("rank " + std::to_string(peer) + " did not answer the hello: " + got.error().message));
  }
  if (reply.magic != kReplyMagic || reply.verdict != kAccepted) {
    return fail(Error::invalid_argument("rank " + std::to_string(peer) + " refused the connection (wrong secret or group)"));
  }
  if (reply.rank != static_cast<std::uint32_t>(peer)) {
    return fail(Error::invalid_argument("endpoint of rank " + std::to_string(peer) + " is rank " + std::to_string(reply.rank)));
  }
  return {};
}

}  // namespace volador::collective
