#pragma once
// A node's open-descriptor limit. Many systems start processes with a soft
// limit of 1,024 descriptors (systemd's default, kept low for programs that
// still use select()) under a much higher hard limit. A master holds one
// connection per agent, rank worker and client, plus every connection still
// in its TLS handshake (cut after the handshake limit); at the soft limit
// CAF's acceptor fails accept() with EMFILE on every poll, spinning, and new
// clients wait in the listen backlog behind the silent peers. Volador's
// event loops use epoll, so its processes raise their soft limit.

#include <cstdint>

namespace volador::net {

// The soft limit a Volador process asks for: thousands of peers, and small
// enough that programs which close every descriptor up to the limit when
// they start (trial code inherits it) stay quick.
inline constexpr std::uint64_t kWantedDescriptors = 65536;

// The soft limit to set for a process whose limits are `soft` and `hard`:
// kWantedDescriptors when the hard limit allows it, never lower than `soft`.
[[nodiscard]] std::uint64_t wanted_soft_descriptor_limit(std::uint64_t soft, std::uint64_t hard);

// Raises this process's soft RLIMIT_NOFILE as wanted_soft_descriptor_limit
// says; the soft limit in force afterwards (unchanged when setrlimit fails).
std::uint64_t raise_descriptor_limit();

}  // namespace volador::net
