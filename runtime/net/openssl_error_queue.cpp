// OpenSSL requires the calling thread's error queue to be empty before
// SSL_read, SSL_write, SSL_accept or SSL_connect, or SSL_get_error() may name
// an old error. CAF 0.17's OpenSSL session never clears it (CAF 1.x does):
// every TLS connection that ends badly (a peer closing without close_notify,
// which CAF itself never sends, or a handshake refused for a bad certificate)
// leaves errors on the multiplexer thread's queue, and the next read on any
// healthy connection that would merely block is then taken as fatal. Seen
// here: each client disconnecting from the master dropped the master's agents.
//
// These definitions interpose libssl's for CAF: they clear the queue and call
// the real function. The executables export them (volador_net's link options)
// and the Python module exports them from its own scope, so the dynamic
// linker binds CAF's calls here first.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#define VOLADOR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
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
  return next(ssl);
}

VOLADOR_EXPORT int SSL_connect(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  return next(ssl);
}

namespace volador::net::detail {
// Referenced by configure_actor_system so that every program setting up CAF
// links this file (a static library member nothing calls would be left out).
void keep_openssl_error_queue_clear() {}
}  // namespace volador::net::detail
