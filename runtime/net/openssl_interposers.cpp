// Three things CAF 0.17's OpenSSL session does not do, added by interposing the
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
// 2. Cut accepted connections whose handshakes are not done within the limit
//    configure_actor_system sets (session_clocks.hpp): the TLS handshake
//    and then the peer's first BASP frame (its CAF handshake), which CAF
//    itself never times out. A peer that connects and stays silent, with or
//    without a certificate, no longer holds a descriptor and a session for good.
// 3. Refuse an oversized frame before CAF allocates it: every decrypted read
//    goes through a BaspFrameGuard (basp_frame_guard.hpp), and the read that
//    would complete a header announcing more than kMaxBaspPayloadBytes fails
//    instead (and the socket is shut down), so CAF closes the connection. An
//    authenticated peer, buggy or compromised, could otherwise make a node
//    allocate and zero-fill 4 GiB on its only network thread with 32 bytes.
//    Volador nodes speak BASP only over TLS, so this covers every node port.
// 4. Bind each accepted node link's certificate to the node id its peer
//    names in its BASP handshake (peer_identities.hpp), before CAF reads it,
//    and refuse the frames by which a peer would speak for another node, so
//    that the master can tell whose certificate a message came with.
// 5. Keep CAF from spinning while an accepted session's TLS handshake waits
//    for its peer (handshake_write_backoff.hpp; CAF issue #1060): CAF's
//    epoll_ctl calls go through a HandshakeWriteBackoff, which takes the
//    socket's write interest away while SSL_accept waits to read and gives it
//    back at the next handshake step. Without it, one silent connection kept
//    the master's network thread at 100 % of a core until it was cut.
// 6. Cut node links silent for longer than the connection timeout, counted
//    from each link's first TLS handshake step (session_clocks.hpp), in place
//    of CAF's own check, which counted a dialled link as silent since time
//    zero until its peer's first message and so cut, at its first heartbeat
//    tick, every dial whose peer had not answered yet.
// 2 to 6 hold for node links only: sessions of a context exempted by
// exempt_from_node_link_guards (node_link_guards.hpp; the master's HTTPS
// server) speak another protocol and get 1 alone.
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <span>
#include <thread>

#include "runtime/net/basp_frame_guard.hpp"
#include "runtime/net/handshake_write_backoff.hpp"
#include "runtime/net/link_timings.hpp"
#include "runtime/net/node_link_guards.hpp"
#include "runtime/net/peer_identities.hpp"
#include "runtime/net/session_clocks.hpp"
#include "runtime/wire/codec.hpp"

#define VOLADOR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

using namespace std::chrono_literals;
constexpr auto kWatchInterval = 500ms;

// The largest BASP payload a node accepts from a peer. Volador's largest
// message is a control message of wire::kMaxMessageBytes (a 96 MiB project
// archive and its framing; decode() refuses anything larger); twice that
// leaves room for CAF's envelope around it. Bulk data never goes through CAF.
constexpr std::uint32_t kMaxBaspPayloadBytes = 2 * volador::wire::kMaxMessageBytes;
static_assert(kMaxBaspPayloadBytes / 2 == volador::wire::kMaxMessageBytes, "the cap must fit in payload_len");

template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

// The process's pending handshakes, each clock from its first step.
volador::net::SessionClocks& handshakes() {
  static volador::net::SessionClocks deadlines(volador::net::LinkTimings{}.handshake_timeout);
  return deadlines;
}

// The process's node links, each clock from its first handshake step or its peer's last bytes.
volador::net::SessionClocks& silence() {
  static volador::net::SessionClocks links(volador::net::LinkTimings{}.connection_timeout);
  return links;
}

// The process's sockets whose handshakes wait for their peers, and CAF's epoll registrations.
volador::net::HandshakeWriteBackoff& write_backoff() {
  static volador::net::HandshakeWriteBackoff backoff(real<int (*)(int, int, int, epoll_event*)>("epoll_ctl"));
  return backoff;
}

// Whether `fd` has bytes to read now.
bool readable_now(int fd) {
  pollfd polled{fd, POLLIN, 0};
  return ::poll(&polled, 1, 0) > 0;
}

// Starts, once, the thread that cuts overdue handshakes and silent links
// (shutdown, so that CAF sees the connection fail): only processes with node links run it.
void watch_links() {
  static std::once_flag watching;
  std::call_once(watching, [] {
    std::thread([] {
      const auto cut = [](int fd) { ::shutdown(fd, SHUT_RDWR); };
      for (;;) {
        std::this_thread::sleep_for(kWatchInterval);
        const auto now = std::chrono::steady_clock::now();
        handshakes().cut_expired(now, [](int) { return false; }, cut);
        silence().cut_expired(now, readable_now, cut);
      }
    }).detach();
  });
}

// The index of the ex data that marks an SSL_CTX whose sessions are not node links.
int exemption_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

bool is_node_link(const SSL* ssl) {
  return SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), exemption_index()) == nullptr;
}

// The subject common name of the certificate the session's peer presented ("" without one).
std::string peer_common_name(const SSL* ssl) {
  const X509* cert = SSL_get0_peer_certificate(ssl);
  if (cert == nullptr) return {};
  char name[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name, sizeof name);
  return name;
}

// What an accepted session's frames must pass besides the size cap: the
// binding of its certificate to its node (a session this process dialled
// speaks to a node it chose, and needs none).
volador::net::BaspFrameObserver identity_check(SSL* ssl) {
  if (SSL_is_server(ssl) == 0) return {};
  return [ssl, name = peer_common_name(ssl)](const volador::net::BaspFrame& frame) {
    return volador::net::peer_identities().admit(ssl, name, frame);
  };
}

// The session's frame guard, made on its first read (the TLS handshake is
// done by then) and deleted with the session (OpenSSL calls the free
// function from SSL_free).
volador::net::BaspFrameGuard& frame_guard(SSL* ssl) {
  static const int index = SSL_get_ex_new_index(
      0, nullptr, nullptr, nullptr, [](void*, void* guard, CRYPTO_EX_DATA*, int, long, void*) {
        delete static_cast<volador::net::BaspFrameGuard*>(guard);
      });
  auto* guard = static_cast<volador::net::BaspFrameGuard*>(SSL_get_ex_data(ssl, index));
  if (guard == nullptr) {
    guard = new volador::net::BaspFrameGuard(kMaxBaspPayloadBytes, identity_check(ssl));
    SSL_set_ex_data(ssl, index, guard);
  }
  return *guard;
}

// Fails a read whose bytes complete an oversized frame header or a frame the
// identity check refuses: the socket is shut down and SSL_get_error() says
// SSL_ERROR_SSL, so CAF drops the connection.
int refuse_frame(SSL* ssl, const volador::net::BaspFrameGuard& guard) {
  if (guard.refused_frame())
    spdlog::warn("closing a node connection: its peer '{}' tried to speak for another node", peer_common_name(ssl));
  else
    spdlog::warn("closing a node connection: a peer announced a {} byte frame, over the {} byte limit",
                 guard.refused_payload(), kMaxBaspPayloadBytes);
  ::shutdown(SSL_get_fd(ssl), SHUT_RDWR);
  ERR_raise(ERR_LIB_SSL, SSL_R_EXCESSIVE_MESSAGE_SIZE);
  return -1;
}

}  // namespace

VOLADOR_EXPORT int SSL_read(SSL* ssl, void* buffer, int size) {
  static const auto next = real<int (*)(SSL*, void*, int)>("SSL_read");
  ERR_clear_error();
  const int read = next(ssl, buffer, size);
  if (read <= 0 || !is_node_link(ssl)) return read;
  silence().restart(ssl, SSL_get_fd(ssl), std::chrono::steady_clock::now());
  auto& guard = frame_guard(ssl);
  const bool first_frame_pending = guard.complete_frames() == 0;
  const auto bytes = std::span(static_cast<const std::byte*>(buffer), static_cast<std::size_t>(read));
  if (!guard.admit(bytes)) return refuse_frame(ssl, guard);
  if (first_frame_pending && guard.complete_frames() > 0) handshakes().forget(ssl);
  return read;
}

VOLADOR_EXPORT int SSL_write(SSL* ssl, const void* buffer, int size) {
  static const auto next = real<int (*)(SSL*, const void*, int)>("SSL_write");
  ERR_clear_error();
  return next(ssl, buffer, size);
}

// The clock of an accepted session starts at its first TLS handshake step and
// stops at the peer's first complete BASP frame (its CAF handshake, SSL_read).
// A step that must wait for the peer's bytes takes the socket's write interest
// away until the next step (5.).
VOLADOR_EXPORT int SSL_accept(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_accept");
  ERR_clear_error();
  if (!is_node_link(ssl)) return next(ssl);
  const int fd = SSL_get_fd(ssl);
  write_backoff().resume(fd);
  const int done = next(ssl);
  watch_links();
  const auto now = std::chrono::steady_clock::now();
  handshakes().start(ssl, fd, now);
  silence().start(ssl, fd, now);
  if (done != 1 && SSL_get_error(ssl, done) == SSL_ERROR_WANT_READ && !readable_now(fd)) write_backoff().back_off(fd);
  return done;
}

// CAF's epoll registrations, through the write backoff (5.).
VOLADOR_EXPORT int epoll_ctl(int epfd, int op, int fd, epoll_event* event) {
  return write_backoff().control(epfd, op, fd, event);
}

// A dialled link's silence is counted from its first handshake step (6.).
VOLADOR_EXPORT int SSL_connect(SSL* ssl) {
  static const auto next = real<int (*)(SSL*)>("SSL_connect");
  ERR_clear_error();
  if (is_node_link(ssl)) {
    watch_links();
    silence().start(ssl, SSL_get_fd(ssl), std::chrono::steady_clock::now());
  }
  return next(ssl);
}

// Forgets the session before it (and then its socket) goes away.
VOLADOR_EXPORT void SSL_free(SSL* ssl) {
  static const auto next = real<void (*)(SSL*)>("SSL_free");
  if (ssl != nullptr) {
    handshakes().forget(ssl);
    silence().forget(ssl);
    volador::net::peer_identities().forget(ssl);
    if (const int fd = SSL_get_fd(ssl); fd >= 0) write_backoff().forget(fd);
  }
  next(ssl);
}

namespace volador::net {
void exempt_from_node_link_guards(SSL_CTX* context) {
  static int exempt = 1;  // any non-null value
  SSL_CTX_set_ex_data(context, exemption_index(), &exempt);
}
}  // namespace volador::net

namespace volador::net::detail {
// Called by configure_actor_system, which also makes every program setting
// up CAF link this file (a static library member nothing calls would be left out).
void set_handshake_limit(std::chrono::milliseconds limit) { handshakes().set_limit(limit); }
void set_silence_limit(std::chrono::milliseconds limit) { silence().set_limit(limit); }
}  // namespace volador::net::detail
