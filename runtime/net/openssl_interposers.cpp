// Two things CAF 0.17's OpenSSL session does not do, added by interposing the
// libssl functions it calls. These definitions take the place of libssl's for
// CAF (the executables export them, see volador_net's link options; the
// Python module exports them from its own scope) and call the real ones.
//
// 1. Clear the thread's error queue before SSL_read, SSL_write, SSL_accept
//    and SSL_connect, as OpenSSL requires: otherwise SSL_get_error() may name
//    an old error. Every TLS connection that ends badly (a peer closing
//    without close_notify, which CAF itself never sends, or a handshake
//    refused for a bad certificate) leaves errors on the multiplexer thread's
//    queue, and the next read on any healthy connection that would merely
//    block was taken as fatal: each client disconnecting from the master
//    dropped its agents. CAF 1.x clears the queue itself.
// 2. Cut accepted connections whose handshake is not done within the limit
//    configure_actor_system sets (handshake_deadlines.hpp): a peer that
//    connects and stays silent no longer holds a descriptor and a session
//    for good.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "runtime/net/handshake_deadlines.hpp"
#include "runtime/net/link_timings.hpp"

#define VOLADOR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace std::chrono_literals;
constexpr auto kWatchInterval = 500ms;

template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

// The process's pending handshakes.
volador::net::HandshakeDeadlines& handshakes() {
  static volador::net::HandshakeDeadlines deadlines(volador::net::LinkTimings{}.handshake_timeout);
  return deadlines;
}

// Starts, once, the thread that cuts overdue handshakes (shutdown, so that
// CAF sees the connection fail): only processes that accept connections run it.
void watch_handshakes() {
  static std::once_flag watching;
  std::call_once(watching, [] {
    std::thread([] {
      for (;;) {
        std::this_thread::sleep_for(kWatchInterval);
        handshakes().cut_overdue(volador::net::HandshakeDeadlines::Clock::now(), [](int fd) { ::shutdown(fd, SHUT_RDWR); });
      }
    }).detach();
  });
}

}  // namespace

VOLADOR_EXPORT int SSL_read(SSL* ssl, void* buffer, int size) {
  static const auto next = real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  return next(ssl, buffer, size);
}

VOLADOR_EXPORT int SSL_write(SSL* ssl, const void* buffer, int size) {
  static const auto next = real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return next(ssl, buffer, size);
}

VOLADOR_EXPORT int SSL_accept(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  const int done = next(ssl);
  if (done == 1) {
    handshakes().ended(ssl);
  } else {
    watch_handshakes();
    handshakes().begun(ssl, SSL_get_fd(ssl), volador::net::HandshakeDeadlines::Clock::now());
  }
  return done;
}

VOLADOR_EXPORT int SSL_connect(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return next(ssl);
}

// Forgets the session before it (and then its socket) goes away.
VOLADOR_EXPORT void SSL_free(SSL* ssl) {
  static const auto next = real<void (*)(SSL*)>("SSL_free");
  if (ssl != nullptr) handshakes().ended(ssl);
  next(ssl);
}

namespace volador::net::detail {
// Called by configure_actor_system, which also makes every program setting
// up CAF link this file (a static library member nothing calls would be left out).
void set_handshake_limit(std::chrono::milliseconds limit) { handshakes().set_limit(limit); }
}  // namespace volador::net::detail
