#include "http/api_reply.hpp"

#include <spdlog/spdlog.h>

namespace volador::http {
namespace {

const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::already_exists: return "already_exists";
    case ErrorCode::io: return "io";
    case ErrorCode::corruption: return "corruption";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::resource_exhausted: return "resource_exhausted";
    case ErrorCode::internal: return "internal";
    case ErrorCode::unauthenticated: return "unauthenticated";
    case ErrorCode::permission_denied: return "permission_denied";
  }
  return "internal";
}

}  // namespace

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument: return 400;
    case ErrorCode::not_found: return 404;
    case ErrorCode::already_exists: return 409;
    case ErrorCode::resource_exhausted: return 413;
    case ErrorCode::unauthenticated: return 401;
    case ErrorCode::permission_denied: return 403;
    case ErrorCode::unavailable: return 503;
    default: return 500;
  }
}

nlohmann::json error_body(int status, const Error& error, const nlohmann::json& extra) {
  nlohmann::json body = {{"status", status}, {"code", code_name(error.code)}, {"message", error.message}};
  body.update(extra);
  return {{"error", body}};
}

ApiReply refused_reply(const std::string& what, const std::vector<std::string>& reasons) {
  const auto first = reasons.empty() ? std::string("no reason given") : reasons.front();
  return {400, error_body(400, Error::invalid_argument(what + ": " + first), {{"details", reasons}}), {}};
}

ApiReply error_reply(const Error& error) {
  const int status = http_status(error.code);
  if (status != 500) return {status, error_body(status, error), {}};
  spdlog::error("http: {}", error.message);
  return {status, error_body(status, Error{error.code, "the master failed to answer (see its log)"}), {}};
}

}  // namespace volador::http
