// volador-tls-probe: tries to get into a Volador node port the ways an
// attacker without the cluster's certificates would, for the multi-host
// tests. Exit status 0: the node refused (or closed the connection), 1: the
// probe got through, 2: usage or local error.
//
//   volador-tls-probe anonymous HOST PORT    CAF's OpenSSL module with no certificate (anonymous ciphers)
//   volador-tls-probe plain HOST PORT        CAF without TLS
//   volador-tls-probe garbage HOST PORT      64 KiB of random bytes over plain TCP
//   volador-tls-probe huge-header HOST PORT  a CAF (BASP) header announcing a 1 GiB payload, in the clear
//   volador-tls-probe idle HOST PORT N       N connections that never start a handshake: all must be closed within 15 s
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kRefused = 0, kGotThrough = 1, kLocalError = 2;

int connect_tcp(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return -1;
  const int fd = ::socket(found->ai_family, SOCK_STREAM, 0);
  const bool ok = fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0;
  freeaddrinfo(found);
  if (!ok && fd >= 0) ::close(fd);
  return ok ? fd : -1;
}

// Sends `bytes`, then waits up to 10 s for the node to close the connection
// (refused) instead of answering with bytes of its own (got through).
int send_and_expect_close(const std::string& host, const std::string& port, const std::vector<char>& bytes) {
  const int fd = connect_tcp(host, port);
  if (fd < 0) return kRefused;  // nothing listening is refusal too
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  pollfd readable{fd, POLLIN, 0};
  int outcome = kGotThrough;
  while (::poll(&readable, 1, 10'000) == 1) {
    std::array<char, 4096> buffer{};
    const auto n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) {
      outcome = kRefused;  // closed (EOF or reset)
      break;
    }
    // A TLS alert is the node saying no; anything else would be an answer.
    if (buffer[0] != 0x15) break;
  }
  ::close(fd);
  std::printf("%s\n", outcome == kRefused ? "closed by the node" : "the node did not close the connection");
  return outcome;
}

std::vector<char> random_bytes(std::size_t count) {
  std::mt19937 random(42);
  std::vector<char> bytes(count);
  for (auto& b : bytes) b = static_cast<char>(random());
  return bytes;
}

// CAF 0.17's 32-byte BASP header: operation, two padding bytes, flags,
// payload length, operation data, source and destination actor ids, in
// network byte order. Operation 0 (server handshake) with 1 GiB announced.
std::vector<char> huge_basp_header() {
  std::vector<char> header(32, 0);
  const std::uint32_t payload = htonl(1u << 30);
  std::memcpy(header.data() + 4, &payload, sizeof payload);
  return header;
}

// Opens `count` connections and sends nothing; refused when the node closes
// every one of them within 15 s (it must not keep silent peers forever).
int stay_silent(const std::string& host, const std::string& port, int count) {
  std::vector<pollfd> open;
  for (int i = 0; i < count; ++i) {
    const int fd = connect_tcp(host, port);
    if (fd < 0) break;  // refused outright: nothing to hold
    open.push_back({fd, POLLIN, 0});
  }
  const auto start = std::chrono::steady_clock::now();
  std::size_t closed = 0;
  while (closed < open.size() && std::chrono::steady_clock::now() - start < std::chrono::seconds(15)) {
    if (::poll(open.data(), open.size(), 500) <= 0) continue;
    for (auto& p : open) {
      if (p.fd < 0 || p.revents == 0) continue;
      std::array<char, 4096> buffer{};
      if (::recv(p.fd, buffer.data(), buffer.size(), 0) > 0) continue;  // an alert, maybe: wait for the close
      ::close(p.fd);
      p.fd = -1;  // poll ignores it from now on
      ++closed;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu of %zu silent connections closed by the node after %.1f s\n", closed, open.size(), seconds);
  for (auto& p : open)
    if (p.fd >= 0) ::close(p.fd);
  return closed == open.size() ? kRefused : kGotThrough;
}

int try_caf(const std::string& host, std::uint16_t port, bool with_openssl) {
  caf::actor_system_config config;
  config.load<caf::io::middleman>();
  if (with_openssl) config.load<caf::openssl::manager>();  // no certificate: CAF's anonymous ciphers
  caf::actor_system system{config};
  auto actor = with_openssl ? caf::openssl::remote_actor<caf::actor>(system, host, port)
                            : system.middleman().remote_actor(host, port);
  std::printf("%s\n", actor ? "connected" : system.render(actor.error()).c_str());
  return actor ? kGotThrough : kRefused;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && std::string(argv[1]) == "idle")) {
    std::fprintf(stderr, "usage: volador-tls-probe anonymous|plain|garbage|huge-header HOST PORT, or idle HOST PORT N\n");
    return kLocalError;
  }
  ::alarm(60);  // a probe that hangs fails the test instead of stalling it
  const std::string how = argv[1], host = argv[2], port = argv[3];
  if (how == "anonymous") return try_caf(host, static_cast<std::uint16_t>(std::stoi(port)), true);
  if (how == "plain") return try_caf(host, static_cast<std::uint16_t>(std::stoi(port)), false);
  if (how == "garbage") return send_and_expect_close(host, port, random_bytes(64 * 1024));
  if (how == "huge-header") return send_and_expect_close(host, port, huge_basp_header());
  if (how == "idle") return stay_silent(host, port, std::stoi(argv[4]));
  std::fprintf(stderr, "volador-tls-probe: unknown probe '%s'\n", how.c_str());
  return kLocalError;
}
