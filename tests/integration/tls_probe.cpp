// volador-tls-probe: tries to get into a Volador node port the ways an
// attacker without the cluster's certificates would, or to overwhelm it as a
// peer with one, for the end-to-end tests. Exit status 0: the node refused
// (or closed the connection), 1: the probe got through, 2: usage or local error.
//
//   volador-tls-probe anonymous HOST PORT    CAF's OpenSSL module with no certificate (anonymous ciphers)
//   volador-tls-probe plain HOST PORT        CAF without TLS
//   volador-tls-probe garbage HOST PORT      64 KiB of random bytes over plain TCP
//   volador-tls-probe huge-header HOST PORT  a CAF (BASP) header announcing a 1 GiB payload, in the clear
//   volador-tls-probe idle HOST PORT N       N connections that never start a handshake: all must be closed within 60 s
//   volador-tls-probe huge-frame HOST PORT BUNDLE
//                                            mutual TLS with BUNDLE (a cluster certificate), then a BASP header
//                                            announcing a 4 GiB payload: the node must close the connection
//   volador-tls-probe quiet-peer HOST PORT BUNDLE
//                                            mutual TLS with BUNDLE, then silence: closed within 15 s
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/resource.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
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
// network byte order; `payload` announced, every other field 0.
std::vector<char> basp_header(std::uint8_t operation, std::uint32_t payload) {
  std::vector<char> header(32, 0);
  header[0] = static_cast<char>(operation);
  const std::uint32_t length = htonl(payload);
  std::memcpy(header.data() + 4, &length, sizeof length);
  return header;
}

// Operation 0 (server handshake) with 1 GiB announced.
std::vector<char> huge_basp_header() { return basp_header(0, 1u << 30); }

// A TLS connection to the node presenting a cluster certificate.
struct TlsPeer {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> context{nullptr, SSL_CTX_free};
  std::unique_ptr<SSL, decltype(&SSL_free)> session{nullptr, SSL_free};
  int fd = -1;
  ~TlsPeer() {
    if (fd >= 0) ::close(fd);
  }
};

// Connects presenting `bundle` (certificate, key, then the CA, which is also
// the only trust anchor) and completes the TLS handshake; false, said on
// stderr, when it cannot.
bool connect_tls(const std::string& host, const std::string& port, const std::string& bundle, TlsPeer& peer) {
  peer.context.reset(SSL_CTX_new(TLS_client_method()));
  SSL_CTX* ctx = peer.context.get();
  if (SSL_CTX_use_certificate_chain_file(ctx, bundle.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, bundle.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_load_verify_locations(ctx, bundle.c_str(), nullptr) != 1) {
    std::fprintf(stderr, "volador-tls-probe: cannot load %s\n", bundle.c_str());
    return false;
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  peer.fd = connect_tcp(host, port);
  if (peer.fd < 0) {
    std::fprintf(stderr, "volador-tls-probe: cannot connect to %s:%s\n", host.c_str(), port.c_str());
    return false;
  }
  peer.session.reset(SSL_new(ctx));
  SSL_set_fd(peer.session.get(), peer.fd);
  if (SSL_connect(peer.session.get()) != 1) {
    std::fprintf(stderr, "volador-tls-probe: the TLS handshake with the cluster certificate failed\n");
    return false;
  }
  return true;
}

// Reads (and drops: the node speaks first, its own CAF handshake) until the
// node closes the connection (refused) or `seconds` pass without a byte (got through).
int await_close(TlsPeer& peer, int seconds) {
  int outcome = kGotThrough;
  pollfd readable{peer.fd, POLLIN, 0};
  while (SSL_pending(peer.session.get()) > 0 || ::poll(&readable, 1, seconds * 1000) == 1) {
    std::array<char, 4096> buffer{};
    if (SSL_read(peer.session.get(), buffer.data(), buffer.size()) <= 0) {
      outcome = kRefused;  // closed (EOF, reset or a TLS alert)
      break;
    }
  }
  std::printf("%s\n", outcome == kRefused ? "closed by the node" : "the node did not close the connection");
  return outcome;
}

// A certified peer sending a valid client-handshake header (operation 1)
// that announces 4 GiB - 1: the node must close the connection.
int send_huge_frame(const std::string& host, const std::string& port, const std::string& bundle) {
  TlsPeer peer;
  if (!connect_tls(host, port, bundle, peer)) return kLocalError;
  const auto header = basp_header(1, 0xffffffffu);
  if (SSL_write(peer.session.get(), header.data(), static_cast<int>(header.size())) != static_cast<int>(header.size()))
    return kRefused;
  return await_close(peer, 10);
}

// A certified peer that completes TLS and then says nothing: the node must
// close the connection after its handshake limit (waited for up to 15 s).
int stay_quiet(const std::string& host, const std::string& port, const std::string& bundle) {
  TlsPeer peer;
  if (!connect_tls(host, port, bundle, peer)) return kLocalError;
  return await_close(peer, 15);
}

// Lets this process hold `count` more descriptors than the usual 1,024 (up to its hard limit).
void allow_descriptors(int count) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= static_cast<rlim_t>(count) + 64) return;
  limit.rlim_cur = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(count) + 64);
  ::setrlimit(RLIMIT_NOFILE, &limit);
}

// Opens `count` connections and sends nothing; refused when the node closes
// every one of them within 60 s (it must not keep silent peers forever; a
// loaded node takes tens of seconds to accept a thousand, and each one's
// handshake limit starts when it is accepted).
int stay_silent(const std::string& host, const std::string& port, int count) {
  allow_descriptors(count);
  std::vector<pollfd> open;
  for (int i = 0; i < count; ++i) {
    const int fd = connect_tcp(host, port);
    if (fd < 0) break;  // refused outright: nothing to hold
    open.push_back({fd, POLLIN, 0});
  }
  const auto start = std::chrono::steady_clock::now();
  std::size_t closed = 0;
  while (closed < open.size() && std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
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
  const std::string mode = argc > 1 ? argv[1] : "";
  const bool four_arguments = argc == 5 && (mode == "idle" || mode == "huge-frame" || mode == "quiet-peer");
  if (argc != 4 && !four_arguments) {
    std::fprintf(stderr,
                 "usage: volador-tls-probe anonymous|plain|garbage|huge-header HOST PORT, idle HOST PORT N, or "
                 "huge-frame|quiet-peer HOST PORT BUNDLE\n");
    return kLocalError;
  }
  ::alarm(60);  // a probe that hangs fails the test instead of stalling it
  const std::string how = argv[1], host = argv[2], port = argv[3];
  if (how == "anonymous") return try_caf(host, static_cast<std::uint16_t>(std::stoi(port)), true);
  if (how == "plain") return try_caf(host, static_cast<std::uint16_t>(std::stoi(port)), false);
  if (how == "garbage") return send_and_expect_close(host, port, random_bytes(64 * 1024));
  if (how == "huge-header") return send_and_expect_close(host, port, huge_basp_header());
  if (how == "idle") return stay_silent(host, port, std::stoi(argv[4]));
  if (how == "huge-frame") return send_huge_frame(host, port, argv[4]);
  if (how == "quiet-peer") return stay_quiet(host, port, argv[4]);
  std::fprintf(stderr, "volador-tls-probe: unknown probe '%s'\n", how.c_str());
  return kLocalError;
}
