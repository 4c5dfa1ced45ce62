#pragma once
// What an API route answers: JSON and a status, or an Error that becomes a
// JSON error body with the status its code maps to. Pure.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"

namespace volador::http {

struct ApiReply {
  int status = 200;
  nlohmann::json body = nlohmann::json::object();
  std::shared_ptr<const std::string> text;  // the body as JSON text already (kept answers): sent instead of `body`
  std::multimap<std::string, std::string> headers;  // extra response headers (Set-Cookie, ...)
};

// 400 invalid_argument, 401 unauthenticated, 403 permission_denied, 404
// not_found, 409 already_exists, 413 resource_exhausted, 503 unavailable, 500 otherwise.
int http_status(ErrorCode code);

// {"error": {"status", "code", "message"}}; `extra` fields join "error".
nlohmann::json error_body(int status, const Error& error, const nlohmann::json& extra = nlohmann::json::object());

// 400 for input refused for several reasons, one line each (a config's
// errors): the first in "message", all of them in "details".
ApiReply refused_reply(const std::string& what, const std::vector<std::string>& reasons);

// The reply for `error`: its status and error_body. Internal errors keep
// their detail out of the reply (logged instead).
ApiReply error_reply(const Error& error);

}  // namespace volador::http
