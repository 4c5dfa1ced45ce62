// /api/v1/auth/... and /api/v1/users: logging in and out (a token, also set
// as an HttpOnly cookie for the web UI), who the caller is, and the users
// (admins only), all through the master's UserDirectory.

#include <fmt/format.h>

#include "http/routes.hpp"

namespace volador::http {
namespace {

constexpr int kTooManyRequests = 429;

std::string session_cookie(const std::string& token, std::int64_t max_age_s, bool secure) {
  return fmt::format("volador_token={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}", token, max_age_s,
                     secure ? "; Secure" : "");
}

// A string field of the JSON body; invalid_argument naming it when missing.
Result<std::string> string_field(const nlohmann::json& body, const char* name) {
  if (!body.contains(name) || !body[name].is_string())
    return fail(Error::invalid_argument(fmt::format("the body needs \"{}\" as a string", name)));
  return body[name].get<std::string>();
}

struct Credentials {
  std::string name;
  std::string password;
  nlohmann::json body;  // the rest of the request's body
};

// {"username", "password", ...} from the request's body.
Result<Credentials> credentials(const ApiRequest& request) {
  auto body = request.json_body();
  if (!body) return fail(body.error());
  auto name = string_field(*body, "username");
  auto password = string_field(*body, "password");
  if (!name) return fail(name.error());
  if (!password) return fail(password.error());
  return Credentials{std::move(*name), std::move(*password), std::move(*body)};
}

Result<ApiReply> login(const ApiRequest& request) {
  auto given = credentials(request);
  if (!given) return fail(given.error());
  auto reply = request.context.services.users->login(given->name, given->password, request.http.remote_addr);
  if (!reply && reply.error().code == ErrorCode::resource_exhausted)  // throttled
    return ApiReply{kTooManyRequests, error_body(kTooManyRequests, reply.error()), {}};
  if (!reply) return fail(reply.error());
  const auto max_age_s = std::max<std::int64_t>(0, (reply->expires_at_ms - system_now_ms()) / 1000);
  return ApiReply{.body = *reply,
                  .headers = {{"Set-Cookie", session_cookie(reply->token, max_age_s, request.http.ssl != nullptr)}}};
}

Result<ApiReply> logout(const ApiRequest& request) {
  if (auto done = request.context.services.users->logout(request.caller.token); !done) return fail(done.error());
  return ApiReply{.status = 204, .headers = {{"Set-Cookie", session_cookie("", 0, request.http.ssl != nullptr)}}};
}

Result<ApiReply> me(const ApiRequest& request) { return ApiReply{.body = request.caller.user}; }

Result<ApiReply> list_users(const ApiRequest& request) {
  auto users = request.context.services.users->list_users(request.caller.user);
  if (!users) return fail(users.error());
  return ApiReply{.body = *users};
}

Result<ApiReply> create_user(const ApiRequest& request) {
  auto given = credentials(request);
  if (!given) return fail(given.error());
  const auto& body = given->body;
  if (body.contains("admin") && !body["admin"].is_boolean())
    return fail(Error::invalid_argument("\"admin\" must be true or false"));
  auto user = request.context.services.users->create_user(request.caller.user, given->name, given->password,
                                                          body.value("admin", false));
  if (!user) return fail(user.error());
  return ApiReply{.status = 201, .body = *user};
}

}  // namespace

void add_auth_routes(ApiRouter& router) {
  router.post_public("/api/v1/auth/login", login);
  router.post("/api/v1/auth/logout", logout);
  router.get("/api/v1/me", me);
  router.get("/api/v1/users", list_users);
  router.post("/api/v1/users", create_user);
}

}  // namespace volador::http
