#pragma once
// "HOST:PORT" addresses of masters, as given on command lines and in
// VOLADOR_MASTER.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::net {

struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  [[nodiscard]] std::string to_string() const { return host + ":" + std::to_string(port); }
};

inline constexpr std::uint16_t kDefaultMasterPort = 17080;

// Parses "host:port" or ":port" (host 127.0.0.1) or "host" (the default
// port). invalid_argument naming the text when the port is not 1..65535, or
// 0..65535 for an address to listen on (0: the system picks a free port).
Result<Endpoint> parse_endpoint(std::string_view text, bool for_listening = false);

}  // namespace volador::net
