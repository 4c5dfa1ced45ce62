#pragma once
// The API's requests to the master's gateway actor, on the caller's token.

#include <chrono>

#include "actors/atoms.hpp"
#include "actors/blocking_request.hpp"
#include "http/api_router.hpp"

namespace volador::http {

inline constexpr std::chrono::seconds kGatewayTimeout{30};
inline constexpr std::chrono::seconds kCreateTimeout{120};  // journals the project archive

// The gateway's reply to (`atom`, the caller's token, `args`...).
template <class Reply, class Atom, class... Args>
Result<Reply> ask_gateway(const ApiRequest& request, std::chrono::milliseconds timeout, Atom atom, Args&&... args) {
  auto& services = request.context.services;
  return actors::blocking_request<Reply>(*services.system, services.gateway, timeout, atom, request.caller.token,
                                         std::forward<Args>(args)...);
}

}  // namespace volador::http
