#include "runtime/net/endpoint.hpp"

#include <charconv>

namespace volador::net {

Result<Endpoint> parse_endpoint(std::string_view text, bool for_listening) {
  auto colon = text.rfind(':');
  Endpoint endpoint{std::string(text.substr(0, colon)), kDefaultMasterPort};
  if (endpoint.host.empty()) endpoint.host = "127.0.0.1";
  if (colon == std::string_view::npos) return endpoint;
  auto port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || (port == 0 && !for_listening) ||
      port > 65535)
    return fail(Error::invalid_argument("'" + std::string(text) + "' is not HOST:PORT with a port in " +
                                        (for_listening ? "0" : "1") + "..65535"));
  endpoint.port = static_cast<std::uint16_t>(port);
  return endpoint;
}

}  // namespace volador::net
